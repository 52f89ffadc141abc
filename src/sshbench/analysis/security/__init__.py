"""Which algorithms are safe and allowed, in what order, and who a restricted server still lets in.

What is known here is algorithm names and what is known against them, not what a run measured: the
built-in policies and a user's policy file (policy.py), the safe ciphers and the modes Terrapin can
exploit (safety.py), a server's offer judged as a whole as ssh-audit does (audit.py), the security-first
order of a config's lists, a faster name moving ahead only where proven (ordering.py), and which real
clients a server drop-in keeps able to log in (lockout.py).

Above stats/ alone (ordering's proof of speed is a Moses interval); beside physics/, in one layer with
it, neither importing the other. The answers name only safe ciphers and the config is written within a
policy, so both sit above.
"""

"""From a measured run to a config: ordered algorithm lists, connection reuse, streams and compression, as text.

What is known here is what goes into ssh_config and sshd_config and why: the ordered lists that are
fast and safe and never break a working login (recommend.py), what a config says of ControlMaster
(reuse_advice.py) and of streams and compression (transfer_advice.py), and the texts themselves, the
client Host block, the OpenSSH server drop-in and who it shuts out (configtext.py).

Above answers/ and connections/ (a config says only what they proved), security/ (the policy, the order,
the clients a drop-in must keep) and stats/. runs/ makes a fleet's one recommendation with it, so it
sits above.
"""

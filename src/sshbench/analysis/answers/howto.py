"""How to use a change the link answer names, as a command a user can paste: single changes and combined ones.

ssh_config can set a cipher and SSH's own compression, but not parallel
connections or a compressor around ssh; those are invocations. Every
change of the answer (analysis/answers/remedies.py) - N streams, a compressor, a
cipher, another build, or several at once as the run crossed them - gets
the one command that applies exactly what was measured: the same stream
count, the same compressor at the same level with the same flags, the same
cipher. DIR and HOST are placeholders; nothing from a results file reaches
the text unless it is one of the known compressors or an algorithm name
the results schema checked.
"""

from __future__ import annotations

import shlex

from sshbench.results.model import Case


def _ssh_options(case: Case, plain: Case) -> str:
    """ssh's own options for the change: the cipher, SSH's zlib."""
    options = []
    if case.cipher != plain.cipher and case.cipher:
        options.append(f"-c {shlex.quote(case.cipher)}")
    if case.compressor.is_ssh:
        options.append("-C")
    return " ".join(options)


def howto(case: Case, plain: Case) -> str:
    """The command that applies `case`'s change against `plain` to a directory DIR sent to HOST (an upload; a
    download is the mirror image, said in docs/streams.md and docs/compression.md)."""
    compression = case.compressor
    options = _ssh_options(case, plain)
    ssh = f"ssh {options} HOST" if options else "ssh HOST"
    build = f" (with the {case.build} build's ssh and sshd)" if case.build != plain.build and case.build else ""
    if compression.external and compression.level is not None:
        pack = shlex.join(compression.compressor.compress(compression.level))
        unpack = shlex.join(compression.compressor.decompress())
        if case.streams > 1:
            command = (f"ls DIR | xargs -P {case.streams} -I{{}} sh -c '{pack} < DIR/{{}} | {ssh} \"{unpack} > "
                       f"DIR/{{}}\"'")
        else:
            command = f"tar cf - DIR | {pack} | {ssh} '{unpack} | tar xf -'"
    elif case.streams > 1:
        command = f"ls DIR | xargs -P {case.streams} -I{{}} scp {options + ' ' if options else ''}-r DIR/{{}} HOST:DIR/"
    elif options:
        command = f"tar cf - DIR | {ssh} 'tar xf -'  (or scp/rsync -e '{ssh.removesuffix(' HOST')}')"
    else:
        command = "tar cf - DIR | ssh HOST 'tar xf -'"
    return f"`{command}`{build}"

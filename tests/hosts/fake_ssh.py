"""A stand-in for the ssh client, for the tests of kind = "ssh" hosts.

It takes the command line datcts builds for ssh, checks it as far as a test
can (BatchMode=yes first; options in ssh's own syntax; a `--` before the
destination; one command string after it), and then does what sshd would:
runs the command string through a shell, with a clean environment, on the
"remote host", here the network namespace named by the destination's host
part.  Exit 255 for a malformed command line, as ssh does for its errors.
"""

import os
import sys

# ssh's options that take an argument, and those that do not (OpenSSH 9).
WITH_ARG = set("BbcDEeFIiJLlmOoPpQRSWw")
NO_ARG = set("46AaCfGgKkMNnqsTtVvXxYy")


def die(msg: str) -> None:
    print(f"fake-ssh: {msg}", file=sys.stderr)
    sys.exit(255)


def main(argv: list) -> None:
    opts = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or len(a) < 2:
            break
        flag = a[1]
        if flag in WITH_ARG:
            if len(a) > 2:
                opts.append((flag, a[2:]))
            else:
                if i + 1 >= len(argv):
                    die(f"option -{flag} needs an argument")
                opts.append((flag, argv[i + 1]))
                i += 1
        elif flag in NO_ARG and all(c in NO_ARG for c in a[1:]):
            opts.extend((c, None) for c in a[1:])
        else:
            die(f"unknown option {a}")
        i += 1
    rest = argv[i:]
    if len(rest) != 2:
        die(f"expected a destination and one command string, got {rest!r}")
    dest, command = rest
    if not opts or opts[0] != ("o", "BatchMode=yes"):
        die("the first option must be -o BatchMode=yes")
    if any(f == "o" and v.lower().startswith(("passwordauthentication=yes", "batchmode=no"))
           for f, v in opts):
        die("password authentication requested")
    host = dest.split("@", 1)[-1]
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    os.execve("/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else "/sbin/ip",
              ["ip", "netns", "exec", host, "sh", "-c", command], env)


if __name__ == "__main__":
    main(sys.argv[1:])

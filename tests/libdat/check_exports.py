#!/usr/bin/python3
"""libdat must export exactly the DAT 1.2 functions of the ABI data (every
'proto' row except the provider entry points), all under version DAT_1.2,
with SONAME libdat.so.1."""
import re
import subprocess
import sys

PROVIDER_SIDE = {'dat_provider_init', 'dat_provider_fini'}
# The installed libdat has no mutant entry points: the registry's mutants
# live in tests/mutants/hand/registry.toml and only in the copy `datcts
# mutate` builds (docs/mutants.md).


def main(tsv, lib):
    want = set()
    with open(tsv, encoding='utf-8') as f:
        for line in f:
            if line.startswith('proto\t'):
                name = re.search(r'(\w+)\s*\(', line.split('\t', 1)[1]).group(1)
                if name not in PROVIDER_SIDE:
                    want.add(name)
    syms = subprocess.run(['readelf', '--dyn-syms', '-W', lib], check=True,
                          capture_output=True, text=True).stdout
    got, unversioned = set(), set()
    for line in syms.splitlines():
        col = line.split()
        if len(col) < 8 or col[3] not in ('FUNC', 'OBJECT') or col[6] == 'UND':
            continue
        if col[3] == 'OBJECT' and col[6] == 'ABS':
            continue            # the version node (DAT_1.2) itself
        name, _, version = col[7].partition('@')
        version = version.lstrip('@')
        got.add(name)
        if version != 'DAT_1.2':
            unversioned.add(col[7])
    dyn = subprocess.run(['readelf', '-d', lib], check=True,
                         capture_output=True, text=True).stdout
    soname = re.search(r'\(SONAME\).*\[(.*)\]', dyn)
    ok = True
    for name in sorted(want - got):
        print('missing export: %s' % name)
        ok = False
    for name in sorted(got - want):
        print('unexpected export: %s' % name)
        ok = False
    for name in sorted(unversioned):
        print('export not in version DAT_1.2: %s' % name)
        ok = False
    if not soname or soname.group(1) != 'libdat.so.1':
        print('SONAME is %s, expected libdat.so.1' % (soname.group(1) if soname else 'missing'))
        ok = False
    print('%d exports checked (%d expected)' % (len(got), len(want)))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A pprof file's samples as folded lines, by one of its values, decoded with
profile.proto (backend.py's schemas), as Go's tools read it.

  pprof_values.py FILE TYPE   one line a sample: frame;...;frame VALUE, the value
                              whose sample type is TYPE (frames outermost first);
                              first, a line '# TYPE/UNIT,...' of every sample type
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend  # noqa: E402


def main():
    path, want = sys.argv[1], sys.argv[2]
    with open(path, 'rb') as f:
        p = backend.decode_pprof(backend.compile_schemas(), f.read(), path)
    types = [t for t, _ in p['sample_types']]
    print('# ' + ','.join('%s/%s' % (t, u) for t, u in p['sample_types']))
    if want not in types:
        return
    i = types.index(want)
    for s in p['samples']:
        print('%s %d' % (';'.join(s['frames']), s['values'][i]))


if __name__ == '__main__':
    main()

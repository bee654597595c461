#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Questions about what backend.py accepted (its --out file), for shell tests.

  pushed.py OUT EXPR

prints the value of the Python expression EXPR, in which
  reqs      the accepted requests (backend.py's JSON lines, in order)
  profs     every profile of every request
  folded(p) a profile's samples as {"a;b;c": value[0] summed}
  stitch_folded(p) the same, each frame labelled as stitch's folded output
            labels it (less the _[k]/_[i] marks)
  share(p, regex)  the part of p's value[0] in samples whose folded stack
            matches regex (re.search)
  total(p)  the sum of p's value[0]
  frame(p, name)   the first frame detail (file, line, mapping, type) named name
A string prints as is, a set as a sorted JSON list, anything else as JSON.
"""
import json
import re
import sys


def folded(p):
    out = {}
    for s in p['samples']:
        k = ';'.join(s['frames'])
        out[k] = out.get(k, 0) + s['values'][0]
    return out


INTERP_MAPPINGS = ('[perl]', '[ruby]', '[python]')  # stitch's pprof (formats/pprof.h)
INTERP_TYPES = ('perl', 'ruby', 'cpython')  # OTLP's profile.frame.type


def frame_label(d):
    """A frame as stitch's folded output names it (profile_frame_label), less the _[k] and
    _[i] marks: ';' made ':', control bytes '?', an interpreter's "name (file:line)"."""
    def clean(t):
        return ''.join(':' if c == ';' else '?' if ord(c) < 0x20 or c == '\x7f' else c
                       for c in t)
    label = clean(d['name'])
    if (d.get('type') in INTERP_TYPES or d['mapping'] in INTERP_MAPPINGS) and d['file']:
        label += ' (%s%s)' % (clean(d['file']), ':%d' % d['line'] if d['line'] else '')
    return label


def stitch_folded(p):
    """folded(p) with the frames labelled as stitch's folded output labels them."""
    out = {}
    for s in p['samples']:
        k = ';'.join(frame_label(d) for d in s['details'])
        out[k] = out.get(k, 0) + s['values'][0]
    return out


def total(p):
    return sum(s['values'][0] for s in p['samples'])


def share(p, regex):
    t = total(p)
    return sum(v for k, v in folded(p).items() if re.search(regex, k)) / t if t else 0.0


def frame(p, name):
    for s in p['samples']:
        for d in s['details']:
            if d['name'] == name:
                return d
    return None


def main():
    with open(sys.argv[1]) as f:
        reqs = [json.loads(line) for line in f if line.strip()]
    profs = [p for r in reqs for p in r['profiles']]
    v = eval(sys.argv[2], {'reqs': reqs, 'profs': profs, 'folded': folded,
                           'stitch_folded': stitch_folded, 'share': share,
                           'total': total, 'frame': frame, 're': re, 'len': len,
                           'sorted': sorted, 'set': set, 'sum': sum, 'all': all, 'any': any})
    if isinstance(v, (set, frozenset)):
        v = sorted(v)
    print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))


if __name__ == '__main__':
    main()

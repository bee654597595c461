#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What test backends received (backend.py --out files), as lines for shell tests.

  pushes.py profiles FILE...   one line a profile: KIND TIME_NS DURATION_NS NAME SERVICE
                               HOST CONTAINER POD LABELS (- where absent; LABELS: the
                               other labels as k=v,k=v)
  pushes.py folded FILE...     one line a sample: KIND;SERVICE;frame;...;frame VALUE
                               (frames outermost first, the first value; an OTLP
                               profile of allocations counted left out)
  pushes.py objects FILE...    the same, the allocations counted (the value named
                               alloc_objects or inuse_objects); profiles without: none
  pushes.py requests FILE...   one line a request: KIND PATH CONTENT_TYPE
  pushes.py types FILE...      one line a profile: KIND NAME TYPE/UNIT[,TYPE/UNIT...]
                               (its sample types)
"""
import json
import sys

# A label's name in Pyroscope and Parca, and the OTLP resource attribute that says it.
NAMES = {
    'service_name': 'service.name',
    'host_name': 'host.name',
    'container_id': 'container.id',
}
SHOWN = ('__name__', 'service_name', 'host_name', 'container_id', 'pod_uid')


def label(labels, name):
    v = labels.get(name, labels.get(NAMES.get(name, ''), '-'))
    return str(v) if v != '' else '-'


def lines(files):
    for path in files:
        with open(path) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    for req in lines(files):
        if mode == 'requests':
            print(req['kind'], req['path'], req['content_type'])
            continue
        for p in req['profiles']:
            labels = p.get('labels', {})
            if mode == 'types':
                print(req['kind'], label(labels, '__name__'),
                      ','.join('%s/%s' % (t, u) for t, u in p.get('sample_types', [])))
            elif mode == 'profiles':
                other = ','.join('%s=%s' % (k, v) for k, v in sorted(labels.items())
                                 if k not in SHOWN and k not in NAMES.values())
                print(req['kind'], p.get('time_ns', 0), p.get('duration_ns', 0),
                      label(labels, '__name__'), label(labels, 'service_name'),
                      label(labels, 'host_name'), label(labels, 'container_id'),
                      label(labels, 'pod_uid'), other or '-')
            else:
                # The allocations counted: a pprof's second value, or an
                # OTLP Profile of their own (it has one sample type).
                types = [t for t, _ in p.get('sample_types', [])]
                at = [i for i, t in enumerate(types) if t.endswith('_objects')]
                want = (at or [None])[0] if mode == 'objects' else 0
                if want is None or (mode != 'objects' and at == [0]):
                    continue
                for s in p['samples']:
                    print('%s;%s;%s %d' % (req['kind'], label(labels, 'service_name'),
                                           ';'.join(s['frames']), s['values'][want]))

if __name__ == '__main__':
    main()

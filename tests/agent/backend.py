#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for a profiling backend, for the tests of `stitch agent`.

An HTTP/1.1 server on 127.0.0.1 that takes what one kind of server takes
(Pyroscope's Connect push, an OTLP/HTTP profiles export, Parca's gRPC-Web
WriteRaw) and checks it as that server would: the path, the content type,
the body decoded with the published schema (tests/agent/proto, compiled by
protoc at start), the pprof inside gunzipped and decoded, the label rules,
the OTLP dictionary's zero entries and every index into it.  A request that
passes is answered as the real server answers and written to --out as one
JSON line:

  {"n": 1, "kind": "otlp", "path": ..., "content_type": ...,
   "profiles": [{"labels": {...}, "sample_types": [["samples", "count"]],
                 "period_type": ["cpu", "nanoseconds"], "period": 52631578,
                 "time_ns": ..., "duration_ns": ...,
                 "samples": [{"frames": ["main", "work"], "values": [3],
                              "labels": {"thread.name": "w"}}]}]}

frames are outermost first (the caller of all first, the leaf last), an
inlined function after the one it was inlined into; "details" has the same
frames with file, line, mapping (and OTLP's profile.frame.type).  labels are Pyroscope's
or Parca's series labels, or OTLP's resource attributes.  A request that
fails a check is answered 400 (Parca: grpc-status 3 in the trailers) and
said on stderr, never written to --out.

  backend.py --kind pyroscope|otlp|parca [--port N] [--port-file F] [--out F]
             [--refuse N] [--status CODE] [--grpc-status N] [--slow SECONDS]

--port 0 (the default) takes a free port; the port is printed on stdout
and written to --port-file.  --refuse N answers 503 to the first N
requests; --status CODE answers every request with CODE after checking it
(written to --out only when CODE is 2xx); --grpc-status N (parca) answers
200 with grpc-status N; --slow waits that long before each answer;
--retry-after S adds Retry-After: S to the 429 and 503 answers; --partial N
(otlp) answers a partial success, N profiles rejected.  Errors
come as each server sends them: Connect's JSON {"code", "message"}
(Pyroscope), a google.rpc.Status (OTLP), grpc-status 3 in the trailers
(Parca, a bad message).  Content-Encoding: gzip is taken (not by Parca,
whose gRPC-Web frames would say so).  Accepted lines carry the
X-Scope-OrgID and Authorization headers, when sent, under "headers".
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, timestamp_pb2
from google.protobuf import message_factory

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'proto')
MAX_BODY = 64 << 20

KINDS = {
    'pyroscope': ('/push.v1.PusherService/Push', 'application/proto'),
    'otlp': ('/v1development/profiles', 'application/x-protobuf'),
    'parca': ('/parca.profilestore.v1alpha1.ProfileStoreService/WriteRaw',
              'application/grpc-web+proto'),
}
# (include dir under proto/, files in it)
SCHEMAS = [
    ('pyroscope', ['push/v1/push.proto', 'types/v1/types.proto']),
    ('parca', ['parca/profilestore/v1alpha1/profilestore.proto']),
    ('otel', ['opentelemetry/proto/collector/profiles/v1development/profiles_service.proto']),
    ('pprof', ['profile.proto']),
]
LABEL_NAME = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')
# An HTTP status as Connect's error code (connectrpc.com/docs/protocol) and gRPC's.
CONNECT_CODES = {400: 'invalid_argument', 401: 'unauthenticated', 403: 'permission_denied',
                 404: 'unimplemented', 408: 'deadline_exceeded', 429: 'resource_exhausted',
                 500: 'internal', 502: 'unavailable', 503: 'unavailable',
                 504: 'deadline_exceeded'}
GRPC_CODES = {400: 3, 401: 16, 403: 7, 404: 12, 408: 4, 429: 8, 500: 13, 502: 14, 503: 14,
              504: 4}


def varint(n):
    out = b''
    while n >= 0x80:
        out += bytes([n & 0x7f | 0x80])
        n >>= 7
    return out + bytes([n])


class Reject(Exception):
    """A request a real server would refuse: why."""


def compile_schemas():
    """Message classes by full name, from the vendored .proto files."""
    with tempfile.TemporaryDirectory(prefix='stitch-backend-') as tmp:
        # Parca imports google/protobuf/{timestamp,duration}.proto: their
        # descriptors come from python3-protobuf (Debian ships no .proto).
        wkt = descriptor_pb2.FileDescriptorSet()
        for mod in (timestamp_pb2, duration_pb2):
            mod.DESCRIPTOR.CopyToProto(wkt.file.add())
        wkt_path = os.path.join(tmp, 'wkt.pb')
        with open(wkt_path, 'wb') as f:
            f.write(wkt.SerializeToString())
        out = os.path.join(tmp, 'all.pb')
        cmd = ['protoc', '--descriptor_set_in=' + wkt_path, '--include_imports',
               '--descriptor_set_out=' + out]
        files = []
        for inc, names in SCHEMAS:
            cmd.append('-I' + os.path.join(PROTO_DIR, inc))
            files += names
        subprocess.run(cmd + files, check=True)
        with open(out, 'rb') as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    factory = message_factory.MessageFactory(pool)

    def cls(name):
        return factory.GetPrototype(pool.FindMessageTypeByName(name))
    return {n: cls(n) for n in (
        'push.v1.PushRequest', 'push.v1.PushResponse',
        'parca.profilestore.v1alpha1.WriteRawRequest',
        'parca.profilestore.v1alpha1.WriteRawResponse',
        'opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest',
        'opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse',
        'perftools.profiles.Profile')}


def check_known(msg, where):
    """Every field of msg (recursively) is one the schema knows: no wrong numbers."""
    if len(msg.UnknownFields()):
        raise Reject('%s: fields the schema does not have: %s' % (
            where, sorted({f.field_number for f in msg.UnknownFields()})))
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if fd.label == fd.LABEL_REPEATED:
            for i, m in enumerate(value):
                check_known(m, '%s.%s[%d]' % (where, fd.name, i))
        else:
            check_known(value, '%s.%s' % (where, fd.name))


def parse(cls, data, where):
    try:
        msg = cls.FromString(data)
    except Exception as e:  # DecodeError, or the C++ parser's RuntimeError
        raise Reject('%s does not decode as %s: %s' % (where, cls.DESCRIPTOR.full_name, e))
    check_known(msg, where)
    return msg


def at(table, i, what):
    if i < 0 or i >= len(table):
        raise Reject('%s index %d out of range (%d entries)' % (what, i, len(table)))
    return table[i]


def check_labels(pairs, where):
    """Pyroscope's label rules (pkg/validation): valid, unique names, __name__ and
    service_name.  Parca needs no service_name, but the agent sends both (issue 26)."""
    labels = {}
    for name, value in pairs:
        if not LABEL_NAME.match(name):
            raise Reject('%s: invalid label name %r' % (where, name))
        if name in labels:
            raise Reject('%s: duplicate label %r' % (where, name))
        if not value:
            raise Reject('%s: label %r has an empty value' % (where, name))
        labels[name] = value
    for need in ('__name__', 'service_name'):
        if need not in labels:
            raise Reject('%s: no %s label' % (where, need))
    return labels


def decode_pprof(classes, raw, where):
    """A pprof as the servers take it: gzipped profile.proto with ids that resolve."""
    if raw[:2] != b'\x1f\x8b':
        raise Reject('%s: raw_profile is not gzipped' % where)
    try:
        data = gzip.decompress(raw)
    except Exception as e:
        raise Reject('%s: raw_profile does not gunzip: %s' % (where, e))
    p = parse(classes['perftools.profiles.Profile'], data, where + '.raw_profile')
    st = p.string_table
    if not st or st[0] != '':
        raise Reject('%s: string_table[0] is not ""' % where)

    def s(i):
        return at(st, i, where + ' string')
    locs = {loc.id: loc for loc in p.location}
    funcs = {fn.id: fn for fn in p.function}
    maps = {m.id: m for m in p.mapping}
    for table, name in ((p.location, 'location'), (p.function, 'function'), (p.mapping, 'mapping')):
        ids = [x.id for x in table]
        if 0 in ids or len(set(ids)) != len(ids):
            raise Reject('%s: %s ids zero or repeated' % (where, name))
    for m in p.mapping:
        s(m.filename)
        s(m.build_id)
    samples = []
    for i, smp in enumerate(p.sample):
        if len(smp.value) != len(p.sample_type):
            raise Reject('%s: sample %d has %d values for %d sample types' % (
                where, i, len(smp.value), len(p.sample_type)))
        frames = []
        for lid in smp.location_id:  # leaf first
            if lid not in locs:
                raise Reject('%s: sample %d: no location %d' % (where, i, lid))
            loc = locs[lid]
            if loc.mapping_id and loc.mapping_id not in maps:
                raise Reject('%s: location %d: no mapping %d' % (where, lid, loc.mapping_id))
            mapping = s(maps[loc.mapping_id].filename) if loc.mapping_id else ''
            for line in loc.line:  # innermost first
                if line.function_id not in funcs:
                    raise Reject('%s: location %d: no function %d' % (
                        where, lid, line.function_id))
                fn = funcs[line.function_id]
                s(fn.system_name)
                frames.append({'name': s(fn.name), 'file': s(fn.filename), 'line': line.line,
                               'mapping': mapping})
        labels = {}
        for lab in smp.label:
            labels[s(lab.key)] = s(lab.str) if lab.str else lab.num
        frames.reverse()
        samples.append({'frames': [f['name'] for f in frames], 'details': frames,
                        'values': list(smp.value), 'labels': labels})
    return {
        'sample_types': [[s(v.type), s(v.unit)] for v in p.sample_type],
        'period_type': [s(p.period_type.type), s(p.period_type.unit)],
        'period': p.period,
        'time_ns': p.time_nanos,
        'duration_ns': p.duration_nanos,
        'samples': samples,
    }


def decode_pyroscope(classes, body):
    req = parse(classes['push.v1.PushRequest'], body, 'PushRequest')
    if not req.series:
        raise Reject('PushRequest has no series')
    out = []
    for i, series in enumerate(req.series):
        where = 'series[%d]' % i
        labels = check_labels([(l.name, l.value) for l in series.labels], where)
        if not series.samples:
            raise Reject('%s has no samples' % where)
        for j, smp in enumerate(series.samples):
            prof = decode_pprof(classes, smp.raw_profile, '%s.samples[%d]' % (where, j))
            prof['labels'] = labels
            if smp.ID:
                prof['id'] = smp.ID
            out.append(prof)
    return out


def grpc_web_frames(body):
    """The frames of a gRPC-Web body: [(flag, bytes)]; every byte accounted for."""
    frames = []
    off = 0
    while off < len(body):
        if len(body) - off < 5:
            raise Reject('gRPC-Web: %d bytes left, short of a frame header' % (len(body) - off))
        n = int.from_bytes(body[off + 1:off + 5], 'big')
        if n > len(body) - off - 5:
            raise Reject('gRPC-Web: frame of %d bytes, %d left' % (n, len(body) - off - 5))
        frames.append((body[off], body[off + 5:off + 5 + n]))
        off += 5 + n
    return frames


def decode_parca(classes, body):
    frames = grpc_web_frames(body)
    if len(frames) != 1 or frames[0][0] != 0:
        raise Reject('gRPC-Web request: want one uncompressed data frame, have flags %s' %
                     [f for f, _ in frames])
    req = parse(classes['parca.profilestore.v1alpha1.WriteRawRequest'], frames[0][1],
                'WriteRawRequest')
    if not req.series:
        raise Reject('WriteRawRequest has no series')
    out = []
    for i, series in enumerate(req.series):
        where = 'series[%d]' % i
        if not series.HasField('labels'):
            raise Reject('%s has no LabelSet' % where)
        labels = check_labels([(l.name, l.value) for l in series.labels.labels], where)
        if not series.samples:
            raise Reject('%s has no samples' % where)
        for j, smp in enumerate(series.samples):
            prof = decode_pprof(classes, smp.raw_profile, '%s.samples[%d]' % (where, j))
            prof['labels'] = labels
            out.append(prof)
    return out


def any_value(v, st):
    kind = v.WhichOneof('value')
    if kind == 'string_value_strindex':
        return at(st, v.string_value_strindex, 'AnyValue string')
    if kind in ('array_value', 'kvlist_value'):
        raise Reject('AnyValue %s where a scalar is expected' % kind)
    return getattr(v, kind) if kind else None


def check_dictionary(d):
    """Every table present with the zero value at index 0 (profiles.proto says MUST)."""
    zero = {'mapping_table': d.mapping_table, 'location_table': d.location_table,
            'function_table': d.function_table, 'attribute_table': d.attribute_table,
            'stack_table': d.stack_table}
    for name, table in zero.items():
        if not table:
            raise Reject('dictionary.%s: no zero entry at index 0' % name)
        if table[0].ByteSize() != 0:
            raise Reject('dictionary.%s[0] is not the zero value: %s' % (name, table[0]))
    if not d.string_table or d.string_table[0] != '':
        raise Reject('dictionary.string_table[0] is not ""')
    if not d.link_table:
        raise Reject('dictionary.link_table: no zero entry at index 0')
    link0 = d.link_table[0]
    if link0.trace_id.strip(b'\0') or link0.span_id.strip(b'\0'):
        raise Reject('dictionary.link_table[0] is not zero')


def decode_otlp(classes, body):
    name = 'opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest'
    req = parse(classes[name], body, 'ExportProfilesServiceRequest')
    if not req.resource_profiles:
        raise Reject('ExportProfilesServiceRequest has no resource_profiles')
    if not req.HasField('dictionary'):
        raise Reject('ExportProfilesServiceRequest has no dictionary')
    d = req.dictionary
    check_dictionary(d)
    st = d.string_table

    def s(i):
        return at(st, i, 'string_table')
    for i, m in enumerate(d.mapping_table):
        s(m.filename_strindex)
        for a in m.attribute_indices:
            at(d.attribute_table, a, 'mapping_table[%d] attribute' % i)
    for i, fn in enumerate(d.function_table):
        s(fn.name_strindex)
        s(fn.system_name_strindex)
        s(fn.filename_strindex)
        if i and not (fn.name_strindex or fn.system_name_strindex or fn.filename_strindex):
            raise Reject('function_table[%d] has no name, system name nor file' % i)
    for i, kv in enumerate(d.attribute_table):
        s(kv.key_strindex)
        s(kv.unit_strindex)
        if i and not kv.key_strindex:
            raise Reject('attribute_table[%d] has no key' % i)
    for i, loc in enumerate(d.location_table):
        at(d.mapping_table, loc.mapping_index, 'location_table[%d] mapping' % i)
        for line in loc.lines:
            at(d.function_table, line.function_index, 'location_table[%d] function' % i)
    for i, stack in enumerate(d.stack_table):
        for li in stack.location_indices:
            at(d.location_table, li, 'stack_table[%d] location' % i)

    def attrs(indices, where):
        out = {}
        for a in indices:
            kv = at(d.attribute_table, a, where + ' attribute')
            key = s(kv.key_strindex)
            if key in out:
                raise Reject('%s: attribute %r twice' % (where, key))
            out[key] = any_value(kv.value, st)
        return out

    def frames_of(stack_index, where):
        frames = []
        for li in at(d.stack_table, stack_index, where + ' stack').location_indices:
            loc = d.location_table[li]
            if li == 0:
                raise Reject('%s: stack holds location 0 (the zero value)' % where)
            mapping = s(d.mapping_table[loc.mapping_index].filename_strindex)
            kind = attrs(loc.attribute_indices, where + ' location').get('profile.frame.type')
            for line in loc.lines:  # inlined first, the caller last
                fn = d.function_table[line.function_index]
                frames.append({'name': s(fn.name_strindex) or s(fn.system_name_strindex),
                               'file': s(fn.filename_strindex), 'line': line.line,
                               'mapping': mapping, 'type': kind})
        return frames[::-1]

    out = []
    for i, rp in enumerate(req.resource_profiles):
        resource = {}
        for kv in rp.resource.attributes:
            key = kv.key or s(kv.key_strindex)
            if key in resource:
                raise Reject('resource_profiles[%d]: attribute %r twice' % (i, key))
            resource[key] = any_value(kv.value, st)
        for j, sp in enumerate(rp.scope_profiles):
            for k, prof in enumerate(sp.profiles):
                where = 'resource_profiles[%d].scope_profiles[%d].profiles[%d]' % (i, j, k)
                samples = []
                for n, smp in enumerate(prof.samples):
                    sw = '%s.samples[%d]' % (where, n)
                    if not smp.values and not smp.timestamps_unix_nano:
                        raise Reject('%s: neither values nor timestamps' % sw)
                    if smp.values and smp.timestamps_unix_nano and \
                            len(smp.values) != len(smp.timestamps_unix_nano):
                        raise Reject('%s: %d values, %d timestamps' % (
                            sw, len(smp.values), len(smp.timestamps_unix_nano)))
                    at(d.link_table, smp.link_index, sw + ' link')
                    frames = frames_of(smp.stack_index, sw)
                    samples.append({'frames': [f['name'] for f in frames], 'details': frames,
                                    'values': list(smp.values),
                                    'timestamps': list(smp.timestamps_unix_nano),
                                    'labels': attrs(smp.attribute_indices, sw)})
                if prof.profile_id and (len(prof.profile_id) != 16 or
                                        not prof.profile_id.strip(b'\0')):
                    raise Reject('%s: profile_id not 16 bytes, or all zero' % where)
                out.append({
                    'profile_id': prof.profile_id.hex(),
                    'labels': resource,
                    'scope': sp.scope.name,
                    'attributes': attrs(prof.attribute_indices, where),
                    'sample_types': [[s(prof.sample_type.type_strindex),
                                      s(prof.sample_type.unit_strindex)]],
                    'period_type': [s(prof.period_type.type_strindex),
                                    s(prof.period_type.unit_strindex)],
                    'period': prof.period,
                    'time_ns': prof.time_unix_nano,
                    'duration_ns': prof.duration_nano,
                    'samples': samples,
                })
    return out


def grpc_web_answer(status, message=''):
    """An empty WriteRawResponse and the trailers frame, as a gRPC-Web server sends them."""
    body = b'' if status else b'\0\0\0\0\0'
    trailers = ('grpc-status:%d\r\ngrpc-message:%s\r\n' % (status, message)).encode()
    return body + b'\x80' + len(trailers).to_bytes(4, 'big') + trailers


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, ctype, body, extra=()):
        if self.server.opts.slow:
            time.sleep(self.server.opts.slow)
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            chunks = []
            total = 0
            while True:
                n = int(self.rfile.readline().split(b';')[0], 16)
                total += n
                if total > MAX_BODY:
                    raise Reject('body over %d bytes' % MAX_BODY)
                if n == 0:
                    while self.rfile.readline() not in (b'\r\n', b'\n', b''):
                        pass
                    return b''.join(chunks)
                chunks.append(self.rfile.read(n))
                self.rfile.readline()
        n = int(self.headers.get('Content-Length', '-1'))
        if n < 0 or n > MAX_BODY:
            raise Reject('no Content-Length, or over %d bytes' % MAX_BODY)
        return self.rfile.read(n)

    def reject(self, code, why):
        """Refuse as each server does: Connect's JSON error, OTLP's google.rpc.Status,
        gRPC-Web's trailers (a bad message) or plain text (what a proxy says)."""
        srv = self.server
        kind = srv.opts.kind
        print('backend(%s): %d: %s' % (kind, code, why), file=sys.stderr, flush=True)
        extra = []
        if code in (429, 503) and srv.opts.retry_after is not None:
            extra.append(('Retry-After', str(srv.opts.retry_after)))
        if kind == 'parca' and code == 400:
            # HTTP 200, the error in the trailers: INVALID_ARGUMENT.
            self.answer(200, 'application/grpc-web+proto',
                        grpc_web_answer(3, why.replace('\r', ' ').replace('\n', ' ')[:200]))
        elif kind == 'pyroscope' and code != 415:
            self.answer(code, 'application/json', json.dumps(
                {'code': CONNECT_CODES.get(code, 'unknown'), 'message': why}).encode(), extra)
        elif kind == 'otlp' and code != 415:
            # google.rpc.Status { int32 code = 1; string message = 2; }, hand-encoded.
            msg = why.encode()
            status = bytes([0x08, GRPC_CODES.get(code, 2), 0x12]) + varint(len(msg)) + msg
            self.answer(code, 'application/x-protobuf', status, extra)
        else:
            self.answer(code, 'text/plain', (why + '\n').encode(), extra)

    def do_GET(self):
        self.send_error(405)

    def do_POST(self):
        srv = self.server
        opts = srv.opts
        with srv.lock:
            srv.nreq += 1
            refuse = srv.nreq <= opts.refuse
        path, ctype = KINDS[opts.kind]
        try:
            body = self.read_body()
        except (Reject, ValueError) as e:
            self.close_connection = True
            return self.reject(400, str(e))
        if refuse:
            return self.reject(503, 'refusing request %d of the first %d' % (srv.nreq, opts.refuse))
        encoding = self.headers.get('Content-Encoding', 'identity').lower()
        if encoding == 'gzip' and opts.kind != 'parca':
            try:
                body = gzip.decompress(body)
            except Exception as e:
                return self.reject(400, 'Content-Encoding gzip, but: %s' % e)
        elif encoding != 'identity':
            return self.reject(415, 'Content-Encoding %r' % encoding)
        got_ctype = self.headers.get('Content-Type', '')
        if self.path != path:
            return self.reject(404, 'path %r, want %r' % (self.path, path))
        if got_ctype.split(';')[0].strip().lower() != ctype:
            return self.reject(415, 'content type %r, want %r' % (got_ctype, ctype))
        try:
            profiles = {'pyroscope': decode_pyroscope, 'otlp': decode_otlp,
                        'parca': decode_parca}[opts.kind](srv.classes, body)
        except Reject as e:
            return self.reject(400, str(e))
        if opts.status and not 200 <= opts.status < 300:
            return self.reject(opts.status, 'answering %d as told' % opts.status)
        if opts.grpc_status:
            return self.answer(200, ctype, grpc_web_answer(opts.grpc_status, 'refused%20as told'))
        with srv.lock:
            srv.naccepted += 1
            line = {'n': srv.naccepted, 'kind': opts.kind, 'path': self.path,
                    'content_type': got_ctype, 'bytes': len(body), 'profiles': profiles}
            # What --push-header-file sends (tenant, token), for the agent's tests.
            for h in ('X-Scope-OrgID', 'Authorization'):
                if self.headers.get(h) is not None:
                    line.setdefault('headers', {})[h] = self.headers.get(h)
            if srv.out:
                srv.out.write(json.dumps(line, sort_keys=True) + '\n')
                srv.out.flush()
        if opts.kind == 'parca':
            self.answer(opts.status or 200, ctype, grpc_web_answer(0))
        elif opts.kind == 'otlp':
            resp = srv.classes['opentelemetry.proto.collector.profiles.v1development.'
                               'ExportProfilesServiceResponse']()
            if opts.partial is not None:
                resp.partial_success.rejected_profiles = opts.partial
                resp.partial_success.error_message = 'rejected %d as told' % opts.partial
            self.answer(opts.status or 200, ctype, resp.SerializeToString())
        else:
            self.answer(opts.status or 200, ctype,
                        srv.classes['push.v1.PushResponse']().SerializeToString())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kind', required=True, choices=sorted(KINDS))
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file')
    ap.add_argument('--out')
    ap.add_argument('--refuse', type=int, default=0)
    ap.add_argument('--status', type=int, default=0)
    ap.add_argument('--grpc-status', type=int, default=0)
    ap.add_argument('--slow', type=float, default=0)
    ap.add_argument('--retry-after', type=int)
    ap.add_argument('--partial', type=int)
    opts = ap.parse_args()
    srv = ThreadingHTTPServer(('127.0.0.1', opts.port), Handler)
    srv.daemon_threads = True
    srv.opts = opts
    srv.classes = compile_schemas()
    srv.lock = threading.Lock()
    srv.nreq = srv.naccepted = 0
    srv.out = open(opts.out, 'a') if opts.out else None
    port = srv.server_address[1]
    if opts.port_file:
        with open(opts.port_file + '.tmp', 'w') as f:
            f.write('%d\n' % port)
        os.rename(opts.port_file + '.tmp', opts.port_file)
    print(port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()

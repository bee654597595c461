#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The BTF of a kernel that is not running here, for a cross build's vmlinux.h.

    kernel-btf.py IMAGE OUT          the BTF inside a kernel image (an arm64 Image,
                                     or one compressed with gzip)
    kernel-btf.py --debian ARCH OUT  the same, from the kernel Debian's
                                     linux-image-ARCH depends on (apt-get download;
                                     needs `dpkg --add-architecture ARCH`)

An arm64 Image is the kernel's memory image: its .BTF section is in it as it is
in vmlinux, a header (magic 0xeb9f, version 1, 24 bytes) followed by the types
and the strings the header sizes.  bookworm's 6.1.0-57-arm64 Image (32 MB) holds
one, 4.8 MB, at 0x11b075c.  OUT is raw BTF, what `bpftool btf dump file OUT
format c` reads.
"""
import gzip
import os
import struct
import subprocess
import sys
import tempfile

HDR = struct.Struct('<HBBIIIII')   # magic, version, flags, hdr_len, type_off/len, str_off/len


def find_btf(image):
    """The first well-formed BTF blob in IMAGE's bytes, or None."""
    at = 0
    while True:
        at = image.find(b'\x9f\xeb\x01', at)
        if at < 0 or at + HDR.size > len(image):
            return None
        _, _, _, hdr_len, type_off, type_len, str_off, str_len = HDR.unpack_from(image, at)
        end = at + hdr_len + str_off + str_len
        # Types first, strings right after them: how the kernel's build lays .BTF out.
        if hdr_len == HDR.size and type_off == 0 and str_off == type_len and \
           type_len > 0 and str_len > 0 and end <= len(image):
            return image[at:end]
        at += 1


def image_bytes(path):
    with open(path, 'rb') as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b'\x1f\x8b' else data


def debian_image(arch, workdir):
    """Download the kernel linux-image-ARCH depends on; return its vmlinuz's path."""
    dep = subprocess.run(['apt-cache', 'depends', f'linux-image-{arch}:{arch}'],
                         capture_output=True, text=True)
    pkgs = [l.split(':', 1)[1].strip() for l in dep.stdout.splitlines()
            if l.strip().startswith('Depends: linux-image-')]
    if dep.returncode or not pkgs:
        sys.exit(f'kernel-btf: no linux-image-{arch} in apt\'s lists: run '
                 f'`dpkg --add-architecture {arch} && apt-get update` (scripts/install-deps.sh does)')
    pkg = pkgs[0] if ':' in pkgs[0] else f'{pkgs[0]}:{arch}'
    subprocess.run(['apt-get', 'download', '-q', '-o', 'APT::Sandbox::User=root', pkg], cwd=workdir, check=True,
                   stdout=subprocess.DEVNULL)
    deb = [f for f in os.listdir(workdir) if f.endswith('.deb')][0]
    tar = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', os.path.join(workdir, deb)],
                           stdout=subprocess.PIPE)
    subprocess.run(['tar', '-x', '-C', workdir, '--wildcards', './boot/vmlinuz-*'],
                   stdin=tar.stdout, check=True)
    tar.wait()
    boot = os.path.join(workdir, 'boot')
    return os.path.join(boot, os.listdir(boot)[0])


def main(argv):
    if len(argv) == 4 and argv[1] == '--debian':
        with tempfile.TemporaryDirectory() as tmp:
            image = debian_image(argv[2], tmp)
            data = image_bytes(image)
            name = os.path.basename(image)
    elif len(argv) == 3:
        data = image_bytes(argv[1])
        name = argv[1]
    else:
        sys.exit(__doc__)
    btf = find_btf(data)
    if btf is None:
        sys.exit(f'kernel-btf: no BTF in {name} (a kernel built without CONFIG_DEBUG_INFO_BTF?)')
    tmp = argv[-1] + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(btf)
    os.replace(tmp, argv[-1])
    print(f'kernel-btf: {len(btf)} bytes of BTF from {name}', file=sys.stderr)


if __name__ == '__main__':
    main(sys.argv)

// SPDX-License-Identifier: GPL-2.0
/*
 * A program embedding CPython through its shared library, as uwsgi, gdb or
 * a plugin host does: the interpreter lives in libpythonX.Y.so, loaded at
 * run time, and the executable is named nothing like python.  Runs a
 * script as python would:
 *
 *   py_embed LIBRARY SCRIPT [ARGS...]     (LIBRARY: libpython3.13.so.1.0)
 *
 * The library is dlopen()ed by name rather than linked, so one binary built
 * on the host, with no Python headers, embeds any release's libpython,
 * in that release's root too (Debian 13's glibc runs what 12's built).
 * RTLD_GLOBAL: the extension modules the script imports take their C API
 * from the library, as they take it from the executable in a python.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int (*bytes_main)(int, char **);
	void *lib;

	if (argc < 3) {
		fprintf(stderr, "usage: py_embed LIBRARY SCRIPT [ARGS...]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "py_embed: %s\n", dlerror());
		return 2;
	}
	/* Py_BytesMain (3.8+): the interpreter's own main, argv[0] kept as ours. */
	*(void **)&bytes_main = dlsym(lib, "Py_BytesMain");
	if (!bytes_main) {
		fprintf(stderr, "py_embed: %s has no Py_BytesMain\n", argv[1]);
		return 2;
	}
	argv[1] = argv[0];
	return bytes_main(argc - 1, argv + 1);
}

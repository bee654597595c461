/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ names as people read them: "node::Start(int, char**)" for
 * "_ZN4node5StartEiPPc", as perf, gdb and c++filt show them.  Through the
 * C++ ABI's own demangler, __cxa_demangle in libstdc++ (the system's, which
 * every C++ program here already maps).  Names come from traced binaries:
 * untrusted, so their length is bounded before the demangler sees them.
 */
#ifndef STITCH_DEMANGLE_H
#define STITCH_DEMANGLE_H

#include <stdbool.h>

/*
 * The longest name handed to the demangler.  Real ones are far shorter
 * (node's longest symbol: ~1.6 KB; boost-heavy code reaches a few KB);
 * a longer one stays as it is.
 */
#define DEMANGLE_MAX_IN 8192

/* Whether name is an Itanium C++ ABI mangled name ("_Z..."). */
bool demangle_wanted(const char *name);

/* name's readable form, malloc'd; NULL if it is not one the demangler reads. */
char *demangle(const char *name);

#endif /* STITCH_DEMANGLE_H */

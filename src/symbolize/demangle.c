// SPDX-License-Identifier: GPL-2.0
/* C++ names demangled: see demangle.h. */
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

/* libstdc++'s abi::__cxa_demangle, extern "C" by the C++ ABI. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

bool demangle_wanted(const char *name)
{
	return name[0] == '_' && name[1] == 'Z';
}

char *demangle(const char *name)
{
	int status = -1;
	char *out;

	if (!demangle_wanted(name) || strnlen(name, DEMANGLE_MAX_IN + 1) > DEMANGLE_MAX_IN)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !out || !out[0]) {
		free(out);
		return NULL;
	}
	return out;
}

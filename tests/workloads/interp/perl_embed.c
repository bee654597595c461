// SPDX-License-Identifier: GPL-2.0
/*
 * A program embedding perl through libperl.so (as uwsgi's psgi plugin,
 * collectd or weechat do): perl's per-thread interpreter pointer then
 * lives in libperl.so's TLS block, reached through the thread's DTV, not
 * in the executable's.  Runs a script like perl would:
 *
 *   perl_embed SCRIPT [ARGS...]
 *
 * Declares the few libperl entry points it needs itself (perlembed(1)),
 * so building it needs libperl.so.5.36 but no perl headers.
 */
#include <stddef.h>

typedef struct interpreter PerlInterpreter;
typedef void (*xs_fn)(PerlInterpreter *, void *);

void Perl_sys_init3(int *argc, char ***argv, char ***env);
void Perl_sys_term(void);
PerlInterpreter *perl_alloc(void);
void perl_construct(PerlInterpreter *);
int perl_parse(PerlInterpreter *, void (*xsinit)(PerlInterpreter *), int, char **, char **);
int perl_run(PerlInterpreter *);
int perl_destruct(PerlInterpreter *);
void perl_free(PerlInterpreter *);
void *Perl_newXS(PerlInterpreter *, const char *, xs_fn, const char *);
void boot_DynaLoader(PerlInterpreter *, void *);

/* DynaLoader, so that the script can load XS modules (threads). */
static void xs_init(PerlInterpreter *my_perl)
{
	Perl_newXS(my_perl, "DynaLoader::boot_DynaLoader", boot_DynaLoader, __FILE__);
}

int main(int argc, char **argv, char **env)
{
	char *args[64] = { "perl_embed" };
	PerlInterpreter *my_perl;
	int i, rc;

	if (argc < 2 || argc > 62)
		return 2;
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	Perl_sys_init3(&argc, &argv, &env);
	my_perl = perl_alloc();
	perl_construct(my_perl);
	rc = perl_parse(my_perl, xs_init, argc, args, NULL);
	if (!rc)
		rc = perl_run(my_perl);
	perl_destruct(my_perl);
	perl_free(my_perl);
	Perl_sys_term();
	return rc;
}

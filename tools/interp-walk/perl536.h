/* Perl 5.36 (Debian 12: perl 5.36.0, threaded: useithreads) — only the first step is done:
 * finding the thread's interpreter (my_perl). The frame walk (PL_curstackinfo, contexts, COPs)
 * is not implemented yet; see docs/interpreters.md for the planned chain. */
#ifndef INTERP_PERL536_H
#define INTERP_PERL536_H
/* PL_current_context: TLS symbol (st_value 0, size 8) in /usr/bin/perl's PT_TLS (memsz 8, align 8):
 * static TLS of the executable, so &PL_current_context = fs_base - 8 + 0 (see exe_tls_offset). */
/* PL_thr_key: pthread_key_t (u32) global; pthread_getspecific(PL_thr_key) is the same my_perl. */
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreters stitch knows, and lookups over them.  Each language's
 * folder owns its detection, its versions and layouts (<lang>_versions.c),
 * its walker and its naming, behind the one struct interp_ops it exports;
 * adding an interpreter is a folder and a line in languages.def, from which
 * this table is made.  Its order is the file's (versions of the first
 * language first in the BPF interp_layouts map).
 */
#include <stdio.h>
#include <string.h>

#include "interp/interp_internal.h"

#define INTERP_LANG(ID, name, ...) extern const struct interp_ops name##_ops;
#include "interp/languages.def"
#undef INTERP_LANG

const struct interp_ops *const interp_languages[] = {
#define INTERP_LANG(ID, name, ...) &name##_ops,
#include "interp/languages.def"
#undef INTERP_LANG
};

const size_t interp_nlanguages = sizeof(interp_languages) / sizeof(interp_languages[0]);

const struct interp_ops *interp_ops_for_lang(uint32_t lang)
{
	size_t i;

	for (i = 0; i < interp_nlanguages; i++)
		if (interp_languages[i]->versions[0].lang == lang)
			return interp_languages[i];
	return NULL;
}

size_t interp_version_count(void)
{
	const struct interp_version *v;
	size_t i, n = 0;

	for (i = 0; i < interp_nlanguages; i++)
		for (v = interp_languages[i]->versions; v->version; v++)
			n++;
	return n;
}

const struct interp_version *interp_version_at(size_t at)
{
	const struct interp_version *v;
	size_t i, n = 0;

	for (i = 0; i < interp_nlanguages; i++)
		for (v = interp_languages[i]->versions; v->version; v++)
			if (n++ == at)
				return v;
	return NULL;
}

uint32_t interp_version_index(const struct interp_version *want)
{
	const struct interp_version *v;
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < interp_nlanguages; i++)
		for (v = interp_languages[i]->versions; v->version; v++, n++)
			if (v == want)
				return n;
	return n;
}

/* "python3.12" -> ("python", "3.12"): names that look like an interpreter. */
static bool looks_like(const char *base, const char *prefix, const char *lang, char *lang_out,
		       size_t lang_len, char *ver_out, size_t ver_len)
{
	size_t n = strlen(prefix), i;

	if (strncmp(base, prefix, n) != 0)
		return false;
	for (i = n; base[i] && (base[i] == '.' || (base[i] >= '0' && base[i] <= '9')); i++)
		;
	if (i == n || base[n] < '0' || base[n] > '9')
		return false;
	snprintf(lang_out, lang_len, "%s", lang);
	snprintf(ver_out, ver_len, "%.*s", (int)(i - n), base + n);
	/* libpython3.11.so -> "3.11"; drop what follows the minor version. */
	for (i = 0, n = 0; ver_out[i]; i++)
		if (ver_out[i] == '.' && ++n == 2)
			ver_out[i] = '\0';
	n = strlen(ver_out);
	if (n && ver_out[n - 1] == '.')
		ver_out[n - 1] = '\0';
	return true;
}

const struct interp_version *interp_module_version(const char *base,
						   const struct interp_ops **ops,
						   char *lang_out, size_t lang_len,
						   char *ver_out, size_t ver_len)
{
	const struct interp_version *v;
	const char *const *p;
	size_t i;

	lang_out[0] = ver_out[0] = '\0';
	for (i = 0; i < interp_nlanguages; i++) {
		for (v = interp_languages[i]->versions; v->version; v++) {
			if ((v->exe_name && strcmp(base, v->exe_name) == 0) ||
			    (v->exe_prefix &&
			     strncmp(base, v->exe_prefix, strlen(v->exe_prefix)) == 0) ||
			    strncmp(base, v->lib_prefix, strlen(v->lib_prefix)) == 0) {
				*ops = interp_languages[i];
				return v;
			}
		}
	}
	for (i = 0; i < interp_nlanguages; i++)
		for (p = interp_languages[i]->lookalikes; p && *p; p++)
			if (looks_like(base, *p, interp_languages[i]->versions[0].lang_name,
				       lang_out, lang_len, ver_out, ver_len))
				return NULL;
	lang_out[0] = ver_out[0] = '\0';
	return NULL;
}

const struct interp_version *interp_version_for_module(const char *base, char *lang_out,
							size_t lang_len, char *ver_out,
							size_t ver_len)
{
	const struct interp_ops *ops;

	return interp_module_version(base, &ops, lang_out, lang_len, ver_out, ver_len);
}

const struct interp_ops *interp_root_lang(const char *spec, const char **name)
{
	size_t i, n;

	for (i = 0; i < interp_nlanguages; i++) {
		const char *lang = interp_languages[i]->versions[0].lang_name;

		n = strlen(lang);
		if (!strncmp(spec, lang, n) && spec[n] == ':') {
			*name = spec + n + 1;
			return interp_languages[i];
		}
	}
	return NULL;
}

int interp_root_find(const struct interp_ops *ops, struct interp_root *r, const char *name,
		     pid_t pid, char *const *command, char *why, size_t why_len)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (!ops->root_find) {
		snprintf(why, why_len, "its calls cannot be roots");
		return INTERP_ROOT_NONE;
	}
	rc = ops->root_find(r, name, pid, command, why, why_len);
	/* The kernel side compares names of up to INTERP_ROOT_NAME_MAX - 1 bytes. */
	if (!rc && strlen(name) >= INTERP_ROOT_NAME_MAX) {
		snprintf(why, why_len, "not %s:NAME (a name of at most %d bytes)",
			 ops->versions[0].lang_name, INTERP_ROOT_NAME_MAX - 1);
		return INTERP_ROOT_BAD_NAME;
	}
	return rc;
}

void interp_root_forms(char *buf, size_t len)
{
	size_t i, n = 0, left = 0, at = 0;

	for (i = 0; i < interp_nlanguages; i++)
		left += interp_languages[i]->root_find != NULL;
	buf[0] = '\0';
	for (i = 0; i < interp_nlanguages && at < len; i++) {
		if (!interp_languages[i]->root_find)
			continue;
		at += snprintf(buf + at, len - at, "%s%s:NAME",
			       !n ? "" : n + 1 == left ? " or " : ", ",
			       interp_languages[i]->versions[0].lang_name);
		n++;
	}
}

bool interp_command_word_names_interpreter(const char *word)
{
	const char *base = strrchr(word, '/');
	char lang[32], ver[32];
	size_t i;

	base = base ? base + 1 : word;
	if (interp_version_for_module(base, lang, sizeof(lang), ver, sizeof(ver)) || lang[0])
		return true;
	for (i = 0; i < interp_nlanguages; i++) {
		const char *name = interp_languages[i]->versions[0].lang_name;

		if (strncmp(base, name, strlen(name)) == 0)
			return true;
	}
	return false;
}

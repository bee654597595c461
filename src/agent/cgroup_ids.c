// SPDX-License-Identifier: GPL-2.0
/* Container and pod ids from cgroup paths (cgroup_ids.h). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "agent/cgroup_ids.h"

static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* The prefixes runtimes put before a container id in a systemd scope's name. */
static const char *const scope_prefixes[] = {
	"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-",
};

/* One path component (len bytes): a container id, copied into ids, or false. */
static bool take_container(const char *c, size_t len, struct cgroup_ids *ids)
{
	size_t i;

	if (len > 6 && !memcmp(c + len - 6, ".scope", 6))
		len -= 6;
	for (i = 0; i < sizeof(scope_prefixes) / sizeof(scope_prefixes[0]); i++) {
		size_t pl = strlen(scope_prefixes[i]);

		if (len == pl + CONTAINER_ID_LEN && !memcmp(c, scope_prefixes[i], pl)) {
			c += pl;
			len -= pl;
			break;
		}
	}
	/* A bare id: /docker/<id>, and the cgroupfs driver's /kubepods/<qos>/pod<uid>/<id>. */
	if (len != CONTAINER_ID_LEN || !all_hex(c, len))
		return false;
	memcpy(ids->container_id, c, len);
	ids->container_id[len] = '\0';
	return true;
}

/* A pod's uid after "pod" in a component: 8-4-4-4-12 hex, '-' or '_' between. */
static bool take_pod(const char *c, size_t len, struct cgroup_ids *ids)
{
	const char *p = NULL;
	char uid[POD_UID_LEN + 1];
	size_t i, rest;

	if (len > 6 && !memcmp(c + len - 6, ".slice", 6))
		len -= 6;
	/* systemd driver: kubepods-burstable-pod<uid>; cgroupfs: pod<uid> */
	for (i = 0; i + 3 <= len; i++)
		if (!memcmp(c + i, "pod", 3) && (i == 0 || c[i - 1] == '-'))
			p = c + i + 3;
	if (!p)
		return false;
	rest = len - (size_t)(p - c);
	if (rest != POD_UID_LEN)
		return false;
	for (i = 0; i < POD_UID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash && (p[i] == '-' || p[i] == '_'))
			uid[i] = '-';
		else if (!dash && isxdigit((unsigned char)p[i]))
			uid[i] = tolower((unsigned char)p[i]);
		else
			return false;
	}
	uid[POD_UID_LEN] = '\0';
	memcpy(ids->pod_uid, uid, sizeof(uid));
	return true;
}

void cgroup_ids_parse(const char *path, struct cgroup_ids *ids)
{
	bool kube = strstr(path, "kubepods") != NULL;
	const char *c = path;

	ids->container_id[0] = '\0';
	ids->pod_uid[0] = '\0';
	while (*c) {
		size_t len = strcspn(c, "/\n");

		/* A CRI-O monitor's scope, crio-conmon-<id>, holds no container. */
		if (len && strncmp(c, "crio-conmon-", 12))
			if (!take_container(c, len, ids) && kube)
				take_pod(c, len, ids);
		c += len;
		if (*c == '/')
			c++;
		else if (*c)
			break;
	}
}

void cgroup_ids_from_file_text(const char *text, struct cgroup_ids *ids)
{
	const char *line = text;

	ids->container_id[0] = '\0';
	ids->pod_uid[0] = '\0';
	/* cgroup v2's line holds the path every controller shares. */
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "0::", 3)) {
			cgroup_ids_parse(line + 3, ids);
			if (ids->container_id[0] || ids->pod_uid[0])
				return;
		}
	}
	/* v1 (hybrid): "N:controllers:PATH" lines. */
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = strchr(line, ':');

		p = p ? strchr(p + 1, ':') : NULL;
		if (!p)
			continue;
		cgroup_ids_parse(p + 1, ids);
		if (ids->container_id[0] || ids->pod_uid[0])
			return;
	}
}

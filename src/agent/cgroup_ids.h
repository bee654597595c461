/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container's and a Kubernetes pod's id, read from a process's cgroup
 * path as the runtimes name their cgroups (cgroup v2, or v1's paths):
 *  - docker:      /system.slice/docker-<64 hex>.scope, /docker/<64 hex>
 *  - containerd:  cri-containerd-<64 hex>.scope, /kubepods/.../<64 hex>
 *  - cri-o:       crio-<64 hex>.scope (crio-conmon-... is its monitor, no container)
 *  - podman:      libpod-<64 hex>.scope, /machine.slice/libpod-<64 hex>.scope/container
 *  - pods:        kubepods-<qos>-pod<uid, '_' for '-'>.slice (systemd driver),
 *                 /kubepods/<qos>/pod<uid>/ (cgroupfs driver)
 * The innermost container component wins (a container nested in another).
 */
#ifndef STITCH_AGENT_CGROUP_IDS_H
#define STITCH_AGENT_CGROUP_IDS_H

#include <stddef.h>

#define CONTAINER_ID_LEN 64	/* hex digits of a full container id */
#define POD_UID_LEN 36		/* 8-4-4-4-12 */

struct cgroup_ids {
	char container_id[CONTAINER_ID_LEN + 1];	/* "" when none */
	char pod_uid[POD_UID_LEN + 1];			/* "" when none */
};

/* The ids in one cgroup path ("/kubepods.slice/..."); absent ones are "". */
void cgroup_ids_parse(const char *path, struct cgroup_ids *ids);

/*
 * The ids of a /proc/PID/cgroup file's text: the cgroup v2 line ("0::PATH"),
 * else the first v1 line that names a container.
 */
void cgroup_ids_from_file_text(const char *text, struct cgroup_ids *ids);

#endif /* STITCH_AGENT_CGROUP_IDS_H */

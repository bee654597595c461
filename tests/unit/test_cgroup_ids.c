// SPDX-License-Identifier: GPL-2.0
/*
 * Container and pod ids from cgroup paths (agent/cgroup_ids.c), in the forms
 * docker, containerd, CRI-O, podman and the kubelet's two cgroup drivers
 * give them, and the paths that must give none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/cgroup_ids.h"

#define ID "4f3c9a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdde"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "6f6b8a1c-3d2e-4b6a-9c1d-0e2f3a4b5c6d"
#define UID_ "6f6b8a1c_3d2e_4b6a_9c1d_0e2f3a4b5c6d"

static void expect(const char *path, const char *container, const char *pod)
{
	struct cgroup_ids ids;

	cgroup_ids_parse(path, &ids);
	assert_string_equal(ids.container_id, container);
	assert_string_equal(ids.pod_uid, pod);
}

static void test_docker(void **state)
{
	expect("/system.slice/docker-" ID ".scope", ID, "");
	expect("/docker/" ID, ID, "");
	/* docker in docker: the innermost container is the process's */
	expect("/docker/" ID2 "/docker/" ID, ID, "");
}

static void test_containerd_and_crio(void **state)
{
	expect("/system.slice/containerd.service/cri-containerd-" ID ".scope", ID, "");
	expect("/system.slice/crio-" ID ".scope", ID, "");
	/* CRI-O's conmon watches a container from outside it */
	expect("/system.slice/crio-conmon-" ID ".scope", "", "");
}

static void test_podman(void **state)
{
	expect("/machine.slice/libpod-" ID ".scope/container", ID, "");
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope", ID,
	       "");
}

static void test_kubernetes_systemd_driver(void **state)
{
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	       ".slice/cri-containerd-" ID ".scope", ID, UID);
	/* guaranteed pods sit right under kubepods.slice */
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", ID, UID);
	/* the pod's own cgroup, no container yet */
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice",
	       "", UID);
	/* kind: the kubelet in a docker container */
	expect("/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	       "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID_
	       ".slice/cri-containerd-" ID ".scope", ID, UID);
}

static void test_kubernetes_cgroupfs_driver(void **state)
{
	expect("/kubepods/burstable/pod" UID "/" ID, ID, UID);
	expect("/kubepods/pod" UID "/" ID, ID, UID);
}

static void test_none(void **state)
{
	expect("/", "", "");
	expect("/user.slice/user-1000.slice/session-3.scope", "", "");
	expect("/system.slice/docker.service", "", "");
	/* one hex digit short, one too many, upper case: no id */
	expect("/docker/" "4f3c9a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccdd", "", "");
	expect("/docker/" ID "0", "", "");
	expect("/docker/4F3C9A1B2C3D4E5F60718293A4B5C6D7E8F90112233445566778899AABBCCDDE", "", "");
	/* a pod uid outside kubepods, or malformed, is none */
	expect("/system.slice/pod" UID ".slice", "", "");
	expect("/kubepods/burstable/pod6f6b8a1c-3d2e-4b6a-9c1d-0e2f3a4b5c6", "", "");
}

static void test_file_text(void **state)
{
	struct cgroup_ids ids;

	cgroup_ids_from_file_text("0::/system.slice/docker-" ID ".scope\n", &ids);
	assert_string_equal(ids.container_id, ID);
	/* v1 (hybrid): the v2 line is "/", a controller's line names the container */
	cgroup_ids_from_file_text("12:pids:/docker/" ID "\n11:cpu,cpuacct:/docker/" ID "\n0::/\n",
				  &ids);
	assert_string_equal(ids.container_id, ID);
	cgroup_ids_from_file_text("0::/init.scope\n", &ids);
	assert_string_equal(ids.container_id, "");
	assert_string_equal(ids.pod_uid, "");
	cgroup_ids_from_file_text("", &ids);
	assert_string_equal(ids.container_id, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_containerd_and_crio),
		cmocka_unit_test(test_podman),
		cmocka_unit_test(test_kubernetes_systemd_driver),
		cmocka_unit_test(test_kubernetes_cgroupfs_driver),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_file_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

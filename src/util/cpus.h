/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STITCH_CPUS_H
#define STITCH_CPUS_H

/* Online CPU ids from /sys/devices/system/cpu/online; count, or -errno. */
int online_cpus(int *cpus, int max);

#endif /* STITCH_CPUS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* stitch features: what the running kernel offers, and what stitch does with it. */
#ifndef STITCH_KERNEL_FEATURES_CMD_H
#define STITCH_KERNEL_FEATURES_CMD_H

int cmd_features(int argc, char **argv);

#endif /* STITCH_KERNEL_FEATURES_CMD_H */

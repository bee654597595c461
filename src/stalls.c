// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "commands.h"
int cmd_stalls(int argc, char **argv)
{
	fprintf(stderr, "not yet\n");
	return 1;
}

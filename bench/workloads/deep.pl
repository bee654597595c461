# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: 20 Perl sub frames (main, run, 17 of dive, leaf) over
# a leaf that computes, as deep.py.
#   perl deep.pl SECONDS
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

sub leaf {
	my ($i) = @_;
	my $s = 0;
	$s += $_ * $i for 0 .. 299;
	return $s;
}

sub dive {
	my ($n, $i) = @_;
	return leaf($i) if $n == 0;
	return dive($n - 1, $i + 1);
}

sub run {
	my ($seconds) = @_;
	my $stop = clock_gettime(CLOCK_MONOTONIC) + $seconds;
	my $i = 0;
	while (clock_gettime(CLOCK_MONOTONIC) < $stop) {
		dive(16, $i);
		$i++;
	}
}

run($ARGV[0]);

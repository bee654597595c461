# SPDX-License-Identifier: GPL-2.0
# bench/interp_cost.sh: 20 Perl sub frames (main, run, f1..f17, leaf), every
# sub a different one, as flat.py.
#   perl flat.pl SECONDS
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

sub leaf {
	my ($i) = @_;
	my $s = 0;
	$s += $_ * $i for 0 .. 299;
	return $s;
}

sub f17 { return leaf($_[0] + 17); }
sub f16 { return f17($_[0] + 16); }
sub f15 { return f16($_[0] + 15); }
sub f14 { return f15($_[0] + 14); }
sub f13 { return f14($_[0] + 13); }
sub f12 { return f13($_[0] + 12); }
sub f11 { return f12($_[0] + 11); }
sub f10 { return f11($_[0] + 10); }
sub f9 { return f10($_[0] + 9); }
sub f8 { return f9($_[0] + 8); }
sub f7 { return f8($_[0] + 7); }
sub f6 { return f7($_[0] + 6); }
sub f5 { return f6($_[0] + 5); }
sub f4 { return f5($_[0] + 4); }
sub f3 { return f4($_[0] + 3); }
sub f2 { return f3($_[0] + 2); }
sub f1 { return f2($_[0] + 1); }

sub run {
	my ($seconds) = @_;
	my $stop = clock_gettime(CLOCK_MONOTONIC) + $seconds;
	my $i = 0;
	while (clock_gettime(CLOCK_MONOTONIC) < $stop) {
		f1($i);
		$i++;
	}
}

run($ARGV[0]);

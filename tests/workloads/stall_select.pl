# SPDX-License-Identifier: GPL-2.0
# A Perl event loop waiting in IO::Select (select() underneath), with short
# tasks and one stall on purpose: 200 ms of CPU without returning to select.
use strict;
use warnings;
use IO::Handle;
use IO::Select;
use Time::HiRes qw(clock_gettime CLOCK_THREAD_CPUTIME_ID);

pipe(my $r, my $w) or die "pipe: $!";
$w->autoflush(1);
my $sel = IO::Select->new($r);

sub spin_for_stall {
	my $end = clock_gettime(CLOCK_THREAD_CPUTIME_ID) + $_[0];
	my $x = 0;
	$x++ while clock_gettime(CLOCK_THREAD_CPUTIME_ID) < $end;
}

sub turn {
	syswrite($w, 'x');
	$sel->can_read;
	sysread($r, my $buf, 1);
}

turn() for 1 .. 300;
spin_for_stall(0.2);
turn() for 1 .. 300;

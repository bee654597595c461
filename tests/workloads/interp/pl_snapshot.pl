# Workload for stitch snapshot's tests (perl 5.36, ithreads): threads parked
# in known places, each on one line (the MARK comments): 4 waiting for a
# lock the main thread holds, 3 sleeping, 2 reading a pipe nobody writes,
# and the main thread sleeping.  Prints "ready" once every thread started.
use strict;
use warnings;
use threads;
use threads::shared;

my $guard :shared = 0;
pipe(my $rd, my $wr) or die "pipe: $!";

sub lock_wait { lock($guard); }  # MARK: lock_wait

sub lock_worker { lock_wait(); }  # MARK: lock_worker

sub sleep_wait { while (1) { sleep 100 } }  # MARK: sleep_wait

sub sleep_worker { sleep_wait(); }  # MARK: sleep_worker

package Reader;

sub wait_byte { sysread($rd, my $buf, 1); }  # MARK: pipe_wait

sub run { wait_byte(); }  # MARK: pipe_worker

package main;

$| = 1;
{
	lock($guard);
	my @t;
	push @t, threads->create(\&lock_worker) for 1 .. 4;  # MARK: lock_threads
	push @t, threads->create(\&sleep_worker) for 1 .. 3;  # MARK: sleep_threads
	push @t, threads->create(\&Reader::run) for 1 .. 2;  # MARK: pipe_threads
	select(undef, undef, undef, 0.3);
	print "ready\n";
	while (1) { sleep 100 }  # MARK: main_wait
}

# SPDX-License-Identifier: GPL-2.0
# stitch latency's Perl root: handle($i) is called N times; every 20th call
# reads a byte that a child process writes 5 ms after it is asked to
# (read_byte, at READ_LINE: blocked in the kernel's pipe read).  Every call
# also calls other subs, recurses, dies inside an eval, and some return
# early or die out of handle itself (caught by the caller), so that a root
# matched by sub entries and returns must tell them all apart.  Prints what
# it measured itself, as slow_calls.c does, after waiting for SIGUSR1 (so
# that a tracer attached with -p sees every call).
#   perl pl_slow_calls.pl N
use strict;
use warnings;
use Time::HiRes qw(time sleep);

my $EVERY = 20;
my $n = shift // 100;
pipe(my $data_r, my $data_w) or die "pipe: $!";
pipe(my $go_r, my $go_w) or die "pipe: $!";
my $child = fork() // die "fork: $!";
if (!$child) {
	close $data_r;
	close $go_w;
	my $x;
	while (sysread($go_r, $x, 1) == 1) {
		sleep(0.005);
		syswrite($data_w, "x") == 1 or exit 1;
	}
	exit 0;
}
close $data_w;
close $go_r;

sub parse {
	my $x = 0;
	$x += $_ for 1 .. ($_[0] % 50);
	return $x;
}

sub fail { die "odd\n" }

sub rec {
	my $d = shift;
	return $d ? rec($d - 1) : 0;
}

sub read_byte {
	my $b;
	sysread($data_r, $b, 1) == 1 or die "read: $!";  # READ_LINE
	return $b;
}

sub handle {
	my ($i) = @_;
	parse($i);
	eval { fail($i) };
	die "handle $i\n" if $i % 7 == 5 && $i % $EVERY != $EVERY - 1;
	return $i if $i % 3 == 0 && $i % $EVERY != $EVERY - 1;
	read_byte() if $i % $EVERY == $EVERY - 1;  # READ_CALL
	rec(3);
	return $i + 1;
}

my $ready = 0;
$SIG{USR1} = sub { $ready = 1 };
$| = 1;
print "ready $$\n";
sleep(0.01) until $ready;

my @d;
for my $i (0 .. $n - 1) {
	syswrite($go_w, "g") if $i % $EVERY == $EVERY - 1;
	my $t0 = time();
	eval { handle($i) };
	push @d, (time() - $t0) * 1e9;
}
close $go_w;
waitpid($child, 0);
my @slow = grep { $_ >= 1e6 } @d;
my $slow_ns = 0;
$slow_ns += $_ for @slow;
@d = sort { $a <=> $b } @d;
printf "calls %d slow %d slow_ns %.0f p99_ns %.0f\n", $n, scalar @slow, $slow_ns,
	$d[int(($n * 99 + 99) / 100) - 1];

# Workload for tools/interp-walk/run-checks.sh: the main thread enters and leaves subs all
# the time, so walks of the running thread race it. Every walk must be one of the three
# stacks below (or a truncated prefix of one), never a line of one sub shown for another.
use strict;
use warnings;

sub leaf { my $x = shift; return $x + 1 }  # MARK: c_leaf
sub mid { my $x = shift; return leaf($x) }  # MARK: c_mid

$| = 1;
print "ready main=" . syscall(186) . " a=0 b=0\n";	# 186: SYS_gettid on x86-64
my $i = 0;
while (1) { $i = mid($i) & 0xffff }  # MARK: c_loop

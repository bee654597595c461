# Workload for the integration tests of Perl frames (tests/integration/interp_perl_tests.sh).
# Lines are found by their MARK comments: keep one MARK per line, and each call on the line
# of its MARK.
#
#   pl_stitch.pl threads SECONDS  thread A calls getppid through packages and an anonymous
#                                 sub, from a sort block's sub, and from a DESTROY; thread B
#                                 only writes to /dev/null through its own subs; main joins.
#                                 No getppid stack may show B's subs.
#   pl_stitch.pl signal SECONDS   a SIGALRM handler calls getppid (a signal stackinfo), the
#                                 main program spins in a sub called from a string eval.
#   pl_stitch.pl cpu SECONDS      thread A burns CPU in a known line, B sleeps.
#   pl_stitch.pl deep SECONDS     getppid under 200 nested calls.
use strict;
use warnings;
use threads;
use Time::HiRes ();
no warnings "recursion";

my ($mode, $secs) = @ARGV;
my $end = time + ($secs // 2);

package Work::Guard;

sub new { return bless {}, shift }
sub DESTROY { getppid() }  # MARK: destroy

package Work::A;

sub leaf { return getppid() }  # MARK: leaf
sub middle { return leaf() }  # MARK: middle

sub outer {
	my $f = sub { return middle() };  # MARK: anon
	return $f->();  # MARK: outer
}

sub key_of { my $p = getppid(); return $_[0] }  # MARK: key_of
sub sorted { my @s = sort { key_of($a) <=> key_of($b) } 3, 1, 2; return @s }  # MARK: sort_block

sub guarded { my $g = Work::Guard->new; undef $g; return 1 }  # MARK: guarded

sub run {
	while (time < $end) {
		outer();  # MARK: a_outer
		sorted();  # MARK: a_sorted
		guarded();  # MARK: a_guarded
	}
	return 0;
}

sub burn { my $n = 0; $n++ while time < $end; return $n }  # MARK: burn
sub cpu { return burn() }  # MARK: a_cpu

sub rec { my $d = shift; return $d ? rec($d - 1) : getppid() }  # MARK: rec
sub deep { while (time < $end) { rec(200) } return 0 }  # MARK: deep

package Work::B;

sub b_write { my $fh = shift; syswrite($fh, "x") }  # MARK: b_write

sub run {
	open(my $fh, '>', '/dev/null') or die;
	while (time < $end) {
		b_write($fh);  # MARK: b_loop
		Time::HiRes::sleep(0.0002);
	}
	return 0;
}

sub nap { Time::HiRes::sleep(0.01) while time < $end; return 0 }  # MARK: b_nap

package Handler;

sub on_alarm { getppid() }  # MARK: on_alarm

package main;

sub spin { my $n = 0; $n++ while time < $end; return $n }  # MARK: m_spin
sub from_string { return eval "spin(); 1" }  # MARK: m_string

if ($mode eq 'threads') {
	my $ta = threads->create(\&Work::A::run);  # MARK: a_create
	my $tb = threads->create(\&Work::B::run);  # MARK: b_create
	$_->join for $ta, $tb;
} elsif ($mode eq 'cpu') {
	my $ta = threads->create(\&Work::A::cpu);  # MARK: cpu_create
	my $tb = threads->create(\&Work::B::nap);  # MARK: nap_create
	$_->join for $ta, $tb;
} elsif ($mode eq 'deep') {
	Work::A::deep();
} elsif ($mode eq 'signal') {
	$SIG{ALRM} = \&Handler::on_alarm;
	Time::HiRes::ualarm(1000, 1000);
	from_string();  # MARK: m_main
	Time::HiRes::ualarm(0);  # MARK: m_end
} else {
	die "usage: pl_stitch.pl threads|cpu|deep|signal SECONDS\n";
}

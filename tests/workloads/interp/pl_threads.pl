# Workload for tools/interp-walk/run-checks.sh (perl 5.36, ithreads). Each thread ends in a
# stable stack looping on one line (MARK); thread A burns CPU
# (walks race a running interpreter), the others sleep 2 ms per turn to spare the machine:
#   thread A: a sort block calls a sub (PERLSI_SORT), inside an anonymous sub;
#   thread B: a DESTROY at scope exit (PERLSI_DESTROY), in a sub called by a format (write)
#             from a lexical sub;
#   thread C: XS calling back into perl: List::Util::first (MULTICALL), whose block reads a
#             tied scalar (FETCH through magic, PERLSI_MAGIC);
#   main:     a %SIG handler (PERLSI_SIGNAL) that interrupted a sub called from a string
#             eval (its own file name, "#line") inside an eval block.
# Prints "ready main=TID a=TID b=TID c=TID" from the signal handler once all are in place.
use strict;
use warnings;
use threads;
use threads::shared;
use List::Util ();

my $tid_a :shared = 0;
my $tid_b :shared = 0;
my $tid_c :shared = 0;

sub gettid { return syscall(186) }	# SYS_gettid on x86-64

package Work::Sorter;

sub start {
	$tid_a = main::gettid();
	my $code = sub {
		my @sorted = sort { key_of($a) <=> key_of($b) } 3, 1, 2;  # MARK: a_sort
		return @sorted;
	};
	return $code->();  # MARK: a_call
}

sub key_of { my $n = shift; while (1) { $n++ } }  # MARK: a_spin

package Work::Guard;

sub new { return bless {}, shift }
sub DESTROY { while (1) { select(undef, undef, undef, 0.002) } }  # MARK: b_spin

package Work::Writer;

sub guarded { { my $guard = Work::Guard->new; } return 1 }  # MARK: b_scope

# A format calls subs from its argument line (the line after the picture, b_picture + 1).
format GUARD =
@<<<<<<<<<<<<<<<<<<<< MARK: b_picture
Work::Writer::guarded()
.

sub start {
	$tid_b = main::gettid();
	my sub scoped { select(STDERR); $~ = "GUARD"; write; return 1 }  # MARK: b_write
	return scoped();  # MARK: b_call
}

package Work::Tied;

sub TIESCALAR { return bless {}, shift }
sub FETCH { while (1) { select(undef, undef, undef, 0.002) } }  # MARK: c_fetch

package Work::Lister;

sub tied_read { tie my $v, 'Work::Tied'; return $v + 1 }  # MARK: c_tied

sub start {
	$tid_c = main::gettid();
	return List::Util::first { tied_read() } 1, 2;  # MARK: c_first
}

package Handler;

sub on_alarm {
	print "ready main=" . main::gettid() . " a=$tid_a b=$tid_b c=$tid_c\n";
	while (1) { select(undef, undef, undef, 0.002) }  # MARK: m_handler
}

package main;

sub main_spin { my $n = 0; while (1) { $n++ } }  # MARK: m_spin
sub from_string { my $ok = eval qq{#line 1 "string-eval"\nmain_spin();\n1}; die $@ unless $ok }  # MARK: m_string

$| = 1;
my $ta = threads->create(\&Work::Sorter::start);  # MARK: a_create
my $tb = threads->create(\&Work::Writer::start);  # MARK: b_create
my $tc = threads->create(\&Work::Lister::start);  # MARK: c_create
select(undef, undef, undef, 0.05) until $tid_a && $tid_b && $tid_c;
$SIG{ALRM} = \&Handler::on_alarm;
alarm 1;
eval { from_string(); 1 } or die;  # MARK: m_main

# Workload for test_perl_release_names_* (tests/integration/interp_perl_tests.sh): names as
# perl 5.40+ prints them: a sub with a signature, a lexical sub, an anonymous sub with a
# signature, a method of a `class` (5.38+).  One MARK per line.
#
#   pl_names.pl SECONDS   getppid under each, in a loop
use v5.40;
no warnings;
use experimental 'class';

class Pt {
	field $x :param = 1;
	method poke ($n) { return getppid() + $n + $x }  # MARK: poke
}

package Work;

sub sig ($a, $b = 2) { return getppid() + $a + $b }  # MARK: sig
my sub lex ($z) { return sig($z) }  # MARK: lex

sub run {
	my $p = Pt->new(x => 3);
	my $f = sub ($q) { return lex($q) + $p->poke(1) };  # MARK: anon
	return $f->(1);  # MARK: run
}

package main;

my $end = time + ($ARGV[0] // 2);
Work::run() while time < $end;  # MARK: main

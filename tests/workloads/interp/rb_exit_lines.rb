# Workload for test_ruby33_lines_at_exit (tests/integration/interp_tests.sh): the
# walks of its last milliseconds are named by stitch after the process is gone.
# tail's first line runs for SECONDS (its iseq and String#sum are named while the
# process lives), then each of its next 200 lines runs once, for about half a
# millisecond, at a pc no sample has seen yet, and the process ends at once
# (exit!: no teardown).  Every sample's tail frame must still have its line.
#
#   rb_exit_lines.rb SECONDS
src = "def tail(s, t)\n  s.sum while Time.now < t\n#{"  s.sum\n" * 200}  exit!(0)\nend\n"
eval(src, binding, "tail.rb", 1)
tail("x" * 600_000, Time.now + ARGV[0].to_f)

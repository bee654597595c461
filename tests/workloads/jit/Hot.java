// SPDX-License-Identifier: GPL-2.0
// A hot Java method under main (tests/integration/jit.sh): java ... Hot SECONDS;
// java ... Hot SECONDS nap: main sleeps in Hot.nap instead
public class Hot {
	static double hotLoop(int n) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += Math.sqrt(i) * 1.5;
		return s;
	}

	// Off the CPU: 5 ms sleeps, until SECONDS of wall time went by.
	static void nap(double seconds) throws InterruptedException {
		long end = System.nanoTime() + (long)(seconds * 1e9);
		while (System.nanoTime() < end)
			Thread.sleep(5);
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 1 && args[1].equals("nap")) {
			nap(Double.parseDouble(args[0]));
			return;
		}
		// CPU time, not wall time: on a busy machine the loop still outweighs the JVM's start.
		java.lang.management.ThreadMXBean mx =
			java.lang.management.ManagementFactory.getThreadMXBean();
		long end = mx.getCurrentThreadCpuTime() + (long)(Double.parseDouble(args[0]) * 1e9);
		double t = 0;
		while (mx.getCurrentThreadCpuTime() < end)
			t += hotLoop(100000);
		System.out.println(t > 0 ? "ok" : "no");
	}
}

// SPDX-License-Identifier: GPL-2.0
// Two classes of one shape, Alpha and Gamma, loaded in turn by loaders
// thrown away and unloaded (System.gc), so the JVM may put the next one's
// methods where the last one's were (tests/integration/jit.sh):
// java -cp DIR Reload SECONDS CLASSDIR
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;

public class Reload {
	static double viaAlpha(Method m) throws Exception {
		return (double)m.invoke(null, 20000000);
	}

	static double viaGamma(Method m) throws Exception {
		return (double)m.invoke(null, 20000000);
	}

	static double once(URL dir, String name) throws Exception {
		URLClassLoader l = new URLClassLoader(new URL[] { dir }, null);
		Method m = l.loadClass(name).getMethod("spin", int.class);
		double r = name.equals("Alpha") ? viaAlpha(m) : viaGamma(m);
		l.close();
		return r;
	}

	public static void main(String[] args) throws Exception {
		long end = System.nanoTime() + (long)(Double.parseDouble(args[0]) * 1e9);
		URL dir = new File(args[1]).toURI().toURL();
		double t = 0;
		for (int i = 0; System.nanoTime() < end; i++) {
			t += once(dir, i % 2 == 0 ? "Alpha" : "Gamma");
			System.gc();
		}
		System.out.println(t > 0 ? "ok" : "no");
	}
}

// SPDX-License-Identifier: GPL-2.0
// Loaded and unloaded in turn by Reload.java: Alpha and Gamma have one shape.
public class Alpha {
	public static double spin(int n) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += Math.sqrt(i) * 1.5;
		return s;
	}
}

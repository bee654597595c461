// SPDX-License-Identifier: GPL-2.0
/*
 * Runs inside the harness page, after the inlined flame graph (and its own
 * script).  Drives the graph the way a person would (clicks, the Search
 * prompt, hovering), then writes one "PASS name" / "FAIL name: why" line per
 * check into a <pre> (id result) that flamegraph_test.sh reads from the DOM.
 */
(function () {
	var out = [], svg = document.querySelector('svg.fg');

	function check(name, ok, why) {
		out.push((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + why));
	}
	function frame(name) {
		var gs = svg.querySelectorAll('.fg-frames g');
		for (var i = 0; i < gs.length; i++) {
			var t = gs[i].children[0].textContent;
			if (t.split('\n')[0] === name)
				return gs[i];
		}
		return null;
	}
	function width(g) { return +g.children[1].getAttribute('width'); }
	function shown(g) { return g.getBoundingClientRect().width > 0; }
	function fire(el, type) {
		el.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window }));
	}
	function near(a, b) { return Math.abs(a - b) < 0.02; }

	try {
		var matched = svg.querySelector('.fg-matched');
		var all = frame('all'), work = frame('work'), idle = frame('idle'), main = work && work.parentNode;
		var compute = frame('compute_[i]');
		var full = width(all);

		if (/[?&]s=/.test(location.search)) {
			/* the URL parameter alone: ?s=sys_read */
			check('url-search', matched.textContent === 'Matched: 20.00%', 'got "' + matched.textContent + '"');
			check('url-search-highlight', frame('sys_read_[k]').children[1].style.fill !== '', 'not highlighted');
		} else {
			check('structure', work && idle && compute && near(width(work), full * 0.8),
			      'work is ' + (work && width(work)) + ' of ' + full);

			/* hostile names: text, never markup or script */
			check('no-injected-img', document.getElementsByTagName('img').length === 0, 'an <img> exists');
			check('no-injected-script', document.getElementsByTagName('script').length === 3,
			      document.getElementsByTagName('script').length + ' scripts');
			check('hostile-comm-is-text', frame('<script>alert(1)<\/script>') !== null, 'comm frame not found');
			check('hostile-frame-is-text', frame('<img src=x onerror=alert(1)>.pl') !== null, 'frame not found');

			/* zoom: click work */
			fire(work.children[1], 'click');
			check('zoom-full-width', near(width(work), full), 'work is ' + width(work) + ', full ' + full);
			check('zoom-child-scaled', near(width(compute), full * 60 / 80), 'compute is ' + width(compute));
			check('zoom-sibling-hidden', !shown(idle), 'idle still shown');
			check('zoom-ancestor-shown', shown(main) && near(width(main), full), 'main hidden or narrow');
			check('zoom-reset-enabled', !svg.querySelector('.fg-reset').classList.contains('fg-off'), 'reset dim');

			/* a box too narrow for text gets one when zoomed into */
			var leaf = frame('leaf');
			check('narrow-no-text', leaf && leaf.getElementsByTagName('text').length === 0, 'has text');
			fire(leaf.children[1], 'click');
			check('zoom-narrow-text', near(width(leaf), full) && leaf.querySelector('text') &&
			      leaf.querySelector('text').textContent === 'leaf', 'no text after zoom');
			fire(work.children[1], 'click');

			/* reset */
			fire(svg.querySelector('.fg-reset'), 'click');
			check('reset', near(width(work), full * 0.8) && shown(idle), 'work ' + width(work));

			/* hover */
			fire(compute.children[1], 'mouseover');
			var d = svg.querySelector('.fg-details').textContent;
			check('hover-details', d === 'compute_[i] (60 samples, 60.00%)', 'got "' + d + '"');
			fire(compute.children[1], 'mouseout');

			/* search through the Search control: nested matches count once */
			window.prompt = function () { return '^(work|compute)'; };
			fire(svg.querySelector('.fg-search'), 'click');
			check('search-nested-once', matched.textContent === 'Matched: 80.00%', 'got "' + matched.textContent + '"');
			check('search-highlight', work.children[1].style.fill !== '' && idle.children[1].style.fill === '',
			      'highlighting wrong');
			window.prompt = function () { return 'onerror'; };
			fire(svg.querySelector('.fg-search'), 'click');
			check('search-hostile', matched.textContent === 'Matched: 10.00%', 'got "' + matched.textContent + '"');
			window.prompt = function () { return '(['; };
			fire(svg.querySelector('.fg-search'), 'click');
			check('search-bad-regex', matched.textContent === 'bad regex', 'got "' + matched.textContent + '"');
			window.prompt = function () { return 'main'; };
			fire(svg.querySelector('.fg-search'), 'click');
			check('search-main', matched.textContent === 'Matched: 100.00%', 'got "' + matched.textContent + '"');

			/* leave it zoomed, for the screenshot */
			fire(frame('io').children[1], 'click');
		}
		check('no-alert', window.alerts.length === 0, 'alert called: ' + window.alerts.join(','));
	} catch (e) {
		check('exception', false, String(e));
	}
	var pre = document.createElement('pre');
	pre.id = 'result';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();

'use strict';
// docs/compatibility.md and the README's Compatibility table, rendered from docs/compatibility.json
// (`npm run test:compat`; `-- --render` renders only).
const fs = require('node:fs');
const path = require('node:path');

const { MATRIX, MARKS, FEATURES, HOOKS, columnLabel, compareVersions } = require('./matrix');

const root = path.resolve(__dirname, '../..');
const MD_FILE = path.join(root, 'docs', 'compatibility.md');
const HAND_WRITTEN = '## What degrades, and why';

/** The hand-written end of compatibility.md (from HAND_WRITTEN on), kept as written by a render. */
function handWritten(text) {
	const at = text.indexOf(`\n${HAND_WRITTEN}\n`);
	return at < 0 ? '' : text.slice(at + 1).trim();
}

function featureCell(entry, feature) {
	if (!entry) return '—';
	if (entry.install && !entry.install.ok) return '❌ does not install';
	if (feature.queue && !entry.queue) return 'not run';
	const source = feature.queue ? entry.queue : entry.run;
	if (!source) return 'not run';
	const tests = source.tests.filter(
		(t) => t.file === feature.file && (!feature.title || feature.title.test(t.title)),
	);
	const suiteError = source.suiteErrors.find(
		(s) => s.file === feature.file || s.file.includes(feature.file),
	);
	if (!tests.length) return suiteError ? '❌ suite failed to run' : 'not run';
	const passed = tests.filter((t) => t.status === 'passed').length;
	const failed = tests.filter((t) => t.status !== 'passed');
	const version = entry.version || (entry.install && entry.install.installed);
	const refused = feature.refused && feature.refused.when(version, entry);
	const degrades = feature.degrades && feature.degrades.when(version, entry);
	// A failure counts as the expected degradation only when every failing test is one that asserts
	// the full behaviour the fallback lacks; any other failure: does not work.
	const onlyDegradedFail =
		degrades && feature.degrades.tests && failed.every((t) => feature.degrades.tests.test(t.title));
	if (failed.length && !onlyDegradedFail) return `❌ ${passed}/${tests.length}`;
	if (refused) return `🚫 ${feature.refused.how}`;
	if (degrades) return `⚠️ ${feature.degrades.how}`;
	return `✅ ${passed}/${tests.length}`;
}

/** The oldest version whose package-loads row works: the minimum n8n version the table shows. */
function minimumVersion(results, vs) {
	const smoke = FEATURES.find((f) => f.key === 'smoke');
	const ok = vs.filter((v) =>
		featureCell({ ...results.versions[v], version: v }, smoke).startsWith('✅'),
	);
	return ok.sort(compareVersions)[0];
}

/** The lines above the table: minimum version and the marks. */
function tableIntro(results, vs) {
	const min = minimumVersion(results, vs);
	return [
		min
			? `**Minimum n8n version: ${min}** — the oldest release tested here on which the package loads and runs (older releases are not tested). The tested releases run on Node 20 (1.x) and Node 24 (2.x).`
			: '**Minimum n8n version:** none of the versions run so far loaded the package.',
		'',
		`Marks: ${MARKS.map(([mark, meaning]) => `${mark} ${meaning}`).join(' · ')} · "not run": not part of that version's run.`,
	];
}

const fmtSecs = (s) =>
	s == null
		? '—'
		: s >= 90
			? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
			: `${Math.round(s)} s`;

function featureTable(results, vs) {
	const lines = [];
	lines.push(`| Feature | ${vs.map(columnLabel).join(' | ')} |`);
	lines.push(`|---|${vs.map(() => '---').join('|')}|`);
	for (const f of FEATURES) {
		lines.push(
			`| ${f.name} | ${vs.map((v) => featureCell(results.versions[v] && { ...results.versions[v], version: v }, f)).join(' | ')} |`,
		);
	}
	return lines;
}

const README = path.join(root, 'README.md');
const README_START = '<!-- compat-table:start (npm run test:compat writes this table) -->';
const README_END = '<!-- compat-table:end -->';

/** The README's Compatibility table, between its markers (left alone when they are missing). */
function renderReadme(results, vs) {
	if (!fs.existsSync(README)) return;
	const text = fs.readFileSync(README, 'utf8');
	const a = text.indexOf(README_START);
	const b = text.indexOf(README_END);
	if (a < 0 || b < a) return;
	const date = (results.updated || '').slice(0, 10);
	const table = [
		README_START,
		'',
		...tableIntro(results, vs),
		'',
		...featureTable(results, vs),
		'',
		`From \`npm run test:compat\` (${date}); times, failures and what degrades: [docs/compatibility.md](docs/compatibility.md).`,
		'',
		README_END,
	];
	fs.writeFileSync(README, text.slice(0, a) + table.join('\n') + text.slice(b + README_END.length));
}

/** One row a version: its Node, how long its runs took, how many tests passed; then the machine. */
function runsTable(results, vs) {
	const lines = ['| n8n | Node | Subset run | Queue-mode run | Passed |', '|---|---|---|---|---|'];
	for (const v of vs) {
		const e = results.versions[v];
		const all = [...((e.run && e.run.tests) || []), ...((e.queue && e.queue.tests) || [])];
		lines.push(
			`| ${v} | ${(e.install && e.install.node) || '—'} | ${e.run ? fmtSecs(e.run.seconds) : '—'} | ${e.queue ? fmtSecs(e.queue.seconds) : '—'} | ${all.filter((t) => t.status === 'passed').length}/${all.length} |`,
		);
	}
	const mach = results.machine || {};
	const last = vs
		.map((v) => results.versions[v].at)
		.filter(Boolean)
		.sort()
		.pop();
	lines.push(
		'',
		`Machine: ${mach.cpus} × ${mach.cpuModel}, ${mach.memoryGiB} GiB, load ${mach.load} (shared); last run ${(last || '—').slice(0, 10)}.`,
	);
	return lines;
}

/** The n8n internals the package relies on: those found everywhere in one line, the others with where. */
function hooksList(results, vs) {
	const has = (h, v) => (results.versions[v].hooks || {})[h.key] === true;
	const everywhere = HOOKS.filter((h) => vs.every((v) => has(h, v)));
	const lines = ['## What the package relies on', ''];
	for (const h of HOOKS.filter((x) => !everywhere.includes(x)))
		lines.push(`- ${h.name}: in ${vs.filter((v) => has(h, v)).join(', ') || 'none'}.`);
	if (everywhere.length)
		lines.push(`- In every version: ${everywhere.map((h) => h.name).join('; ')}.`);
	return lines;
}

/** Each failing test once, with the versions it failed on and the first line of its failure. */
function failures(results, vs) {
	const seen = new Map();
	const add = (key, v) => seen.set(key, [...(seen.get(key) || []), v]);
	for (const v of vs) {
		const e = results.versions[v];
		if (e.install && !e.install.ok) add(`install: ${e.install.error}`, v);
		for (const part of [e.run, e.queue].filter(Boolean)) {
			for (const s of part.suiteErrors) add(`\`${s.file}\` did not run: ${s.failure}`, v);
			for (const t of part.tests.filter((x) => x.status === 'failed'))
				add(
					`\`${t.file}\` — ${t.title}: ${
						String(t.failure)
							.replace(/^Error: /, '')
							.split(/\n| Expected/)[0]
					}`,
					v,
				);
		}
	}
	if (!seen.size) return ['None.'];
	return [...seen].map(([what, on]) => `- n8n ${on.join(', ')}: ${what.replace(/\|/g, '\\|')}`);
}

function render(results) {
	const order = [
		...MATRIX.map((m) => m.version),
		...Object.keys(results.versions).filter((v) => !MATRIX.some((m) => m.version === v)),
	];
	const vs = order.filter((v) => results.versions[v]);
	const lines = [];
	lines.push('# Compatibility with n8n versions');
	lines.push('');
	lines.push(
		`<!-- Written by \`npm run test:compat\` from docs/compatibility.json, except "${HAND_WRITTEN.slice(3)}" and what follows it, kept as written. -->`,
	);
	lines.push('');
	lines.push(
		'Each version ran a subset of the real-n8n suite with the packed package installed as a community package.',
	);
	lines.push('');
	lines.push(...tableIntro(results, vs));
	lines.push('');
	lines.push(...featureTable(results, vs));
	lines.push('');
	lines.push('## Runs');
	lines.push('');
	lines.push(...runsTable(results, vs), '');
	lines.push(...hooksList(results, vs), '');
	lines.push('## Failures', '', ...failures(results, vs), '');
	const kept = handWritten(fs.existsSync(MD_FILE) ? fs.readFileSync(MD_FILE, 'utf8') : '');
	if (kept !== '') lines.push(kept, '');
	fs.writeFileSync(MD_FILE, lines.join('\n'));
	renderReadme(results, vs);
}

module.exports = {
	MD_FILE,
	featureCell,
	featureTable,
	tableIntro,
	fmtSecs,
	handWritten,
	render,
	renderReadme,
};

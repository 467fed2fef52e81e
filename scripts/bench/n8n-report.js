'use strict';

// Tables of `npm run bench:n8n` (stdout and the section "Side by side in one n8n" of BENCHMARKS.md).

const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const { median } = require('./n8n-measure');

const SECTION = '## Side by side in one n8n';
const DELIVERIES = '### Signed deliveries: Consent Flow Trigger vs Webhook node';

function machine() {
	let cpu = 'unknown CPU';
	try {
		const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
		if (m) cpu = m[1].trim();
	} catch {}
	let nproc = os.cpus().length;
	try {
		nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || nproc;
	} catch {}
	return { nproc, ramGiB: os.totalmem() / 1024 ** 3, cpu, load: os.loadavg()[0] };
}

const fmt = (n, digits = 0) =>
	Number.isFinite(n)
		? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
		: '—';
const secs = (ms) => fmt(ms / 1000, 2);
const ratio = (builtIn, ours) =>
	Number.isFinite(builtIn) && Number.isFinite(ours) && ours > 0
		? `${fmt(builtIn / ours, 2)}×`
		: '—';

/** "1 → 0, 0, 0": the first (cold credential) execution, then the measured ones. */
function tokenText(side) {
	const cold = side.warm ? side.warm.tokens : undefined;
	const warm = side.runs.map((r) => r.tokens).join(', ');
	return cold === undefined ? warm : `${cold} → ${warm}`;
}

function sideLabel(side) {
	return side.label + (side.isDefault ? ' (default)' : '');
}

/**
 * Rows of the node comparisons: [{ title, latencyMs, sides:[{ label, builtIn, runs, warm }] }].
 * `builtIn` is the built-in side's short name (e.g. "one expression"); one ratio column per name.
 */
function nodeTable(comparisons) {
	const names = [
		...new Set(comparisons.flatMap((c) => c.sides.filter((s) => s.builtIn).map((s) => s.builtIn))),
	];
	const lines = [
		`| Job | Per request | Side | Node time, s (median) | runs, s | Execution wall time, s (median) | ${names.map((n) => `Speed ratio node / wall vs HTTP Request, ${n} (its time ÷ this row's; >1 = this row faster)`).join(' | ')} | Token requests per execution (first → measured) |`,
		`|---|---|---|---:|---|---:|${names.map(() => '---:|').join('')}---|`,
	];
	for (const c of comparisons) {
		const refs = names.map((n) => {
			const b = c.sides.find((s) => s.builtIn === n);
			return b
				? {
						node: median(b.runs.map((r) => r.nodeMs)),
						wall: median(b.runs.map((r) => r.wallMs)),
						b,
					}
				: null;
		});
		for (const s of c.sides) {
			const node = median(s.runs.map((r) => r.nodeMs));
			const wall = median(s.runs.map((r) => r.wallMs));
			const ratios = refs.map((ref) =>
				!ref || ref.b === s ? '—' : `${ratio(ref.node, node)} / ${ratio(ref.wall, wall)}`,
			);
			lines.push(
				`| ${c.title} | ${c.latencyMs ? `+${c.latencyMs} ms` : 'loopback'} | ${sideLabel(s)} | ${secs(node)} | ${s.runs.map((r) => secs(r.nodeMs)).join(', ')} | ${secs(wall)} | ${ratios.join(' | ')} | ${tokenText(s)} |`,
			);
		}
	}
	return lines.join('\n');
}

/** Rows of the webhook comparison: sides [{ label, ours, runs:[burst] }]. */
function webhookTable(sides) {
	const ours = sides.find((s) => s.ours && !s.variant);
	const m = (s, key) => median(s.runs.map((r) => r[key]));
	const lines = [
		"| Receiver | Deliveries/s until all answered (median) | Deliveries/s until all executed (median) | runs (answered / executed) | n8n CPU per delivery, ms (median; runs) | Ack p50, ms | Ack p99, ms | 2xx answers, successful executions per run | Speed ratio of the trigger (defaults) vs this row, answered / executed (this row's time ÷ the trigger's; >1 = trigger faster) | CPU ratio (this row's n8n CPU ÷ the trigger's; >1 = trigger cheaper) |",
		'|---|---:|---:|---|---:|---:|---:|---|---:|---:|',
	];
	for (const s of sides) {
		const runs = s.runs
			.map((r) => `${fmt(r.answeredPerSec, 1)} / ${fmt(r.executedPerSec, 1)}`)
			.join('; ');
		const cpu = `${fmt(m(s, 'cpuMsPerDelivery'), 1)} (${s.runs.map((r) => fmt(r.cpuMsPerDelivery, 1)).join(', ')})`;
		const counts = s.runs
			.map((r) => `${r.ok}/${r.count}, ${r.success}${r.failed ? ` (+${r.failed} failed)` : ''}`)
			.join('; ');
		const rel =
			s === ours
				? '—'
				: `${ratio(m(ours, 'answeredPerSec'), m(s, 'answeredPerSec'))} / ${ratio(m(ours, 'executedPerSec'), m(s, 'executedPerSec'))}`;
		const cpuRel = s === ours ? '—' : ratio(m(s, 'cpuMsPerDelivery'), m(ours, 'cpuMsPerDelivery'));
		lines.push(
			`| ${s.label} | ${fmt(m(s, 'answeredPerSec'), 1)} | ${fmt(m(s, 'executedPerSec'), 1)} | ${runs} | ${cpu} | ${fmt(m(s, 'ackP50'), 1)} | ${fmt(m(s, 'ackP99'), 1)} | ${counts} | ${rel} | ${cpuRel} |`,
		);
	}
	return lines.join('\n');
}

/**
 * Round `round` (from 0) of a balanced order (Williams): each receiver is first once in n rounds
 * and, for an even count, follows each other receiver once, so no receiver always inherits the
 * same one's leftovers (for 4: A B D C, B C A D, C D B A, D A C B).
 */
function balancedOrder(list, round) {
	const n = list.length;
	const first = [0];
	for (let k = 1; first.length < n; k++) {
		first.push(k);
		if (first.length < n) first.push(n - k);
	}
	return first.map((i) => list[(i + round) % n]);
}

/** The rounds' orders as letters for the table's rows: "A B D C, then B C A D, …". */
function orderText(count, rounds) {
	const letters = Array.from({ length: count }, (_, i) => String.fromCharCode(65 + i));
	const shown = Array.from({ length: Math.min(rounds, count) }, (_, k) =>
		balancedOrder(letters, k).join(' '),
	);
	return `rows A–${letters[count - 1]}: ${shown.join(', then ')}${rounds > count ? ', then again from the first' : ''}`;
}

/**
 * Replaces (or appends) the section starting with `heading` up to the next `## ` heading. Each
 * subsection named in `keep` (a heading or a list of them, e.g. "### Reading", written by hand
 * about an earlier run) is carried over from the old section to the end of the new one, in order.
 */
function writeSection(file, heading, text, { keep } = {}) {
	const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
	const start = current.indexOf(`${heading}\n`);
	let next;
	if (start < 0) {
		next = `${current.replace(/\s*$/, '')}\n\n${text.trim()}\n`;
	} else {
		const after = current.indexOf('\n## ', start + heading.length);
		const old = current.slice(start, after < 0 ? current.length : after + 1);
		const tail = after < 0 ? '' : current.slice(after + 1);
		let body = text.trim();
		for (const sub of [keep || []].flat()) {
			const kept = old.indexOf(`\n${sub}\n`);
			if (kept < 0) continue;
			const end = old.indexOf('\n### ', kept + sub.length + 1);
			body += `\n\n${old.slice(kept + 1, end < 0 ? old.length : end).trim()}`;
		}
		next = `${current.slice(0, start)}${body}\n${tail ? `\n${tail}` : ''}`;
	}
	fs.writeFileSync(file, next);
}

module.exports = {
	SECTION,
	DELIVERIES,
	machine,
	fmt,
	secs,
	ratio,
	nodeTable,
	webhookTable,
	balancedOrder,
	orderText,
	writeSection,
};

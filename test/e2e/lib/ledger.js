'use strict';
// What n8n did with each delivery, read from its Postgres database (queue mode): every execution
// of a workflow with its status and, parsed with n8n's own `flatted` (the format n8n stores run
// data in), the items the Consent Flow Trigger emitted — so each delivery id maps to the
// executions that carried it and the output it was on. The verdicts used by the scenarios:
// lost (answered 2xx as emitted, no successful execution), twice (more than one execution),
// misrouted (an execution with the id on another output than its event's).
const path = require('node:path');
const { triggerRun } = require('./loop');

function flattedOf(topology) {
	const dir = topology.main.install.dir;
	return require(path.join(dir, 'node_modules', 'flatted'));
}

/** [{ id, status, data }] of a workflow's executions (data parsed), from Postgres. */
async function executionsFromDb(topology, workflowId) {
	const flatted = flattedOf(topology);
	const rows = await topology.pgQuery(
		`select e.id, e.status, e."createdAt", e."startedAt", e."stoppedAt", d.data from execution_entity e left join execution_data d on d."executionId" = e.id ` +
			`where e."workflowId" = '${String(workflowId).replace(/'/g, "''")}' order by e.id`,
	);
	return rows.map((r) => {
		let data = null;
		try {
			data = r.data ? flatted.parse(r.data) : null;
		} catch {
			data = null;
		}
		return {
			id: r.id,
			status: r.status,
			createdAt: r.createdAt,
			startedAt: r.startedAt,
			stoppedAt: r.stoppedAt,
			data,
			raw: r.data || '',
		};
	});
}

/** Map delivery id → [{ id, status, output }] over the trigger's emitted items. */
function ledgerOf(executions, triggerName) {
	const ledger = new Map();
	for (const e of executions) {
		for (const { json, output } of triggerRun(e, triggerName).items) {
			const key = json.webhookId ?? null;
			if (!ledger.has(key)) ledger.set(key, []);
			ledger.get(key).push({
				id: e.id,
				status: e.status,
				output,
				createdAt: e.createdAt,
				stoppedAt: e.stoppedAt,
			});
		}
	}
	return ledger;
}

/**
 * Verdicts for `deliveries` ([{ id, output }]) and the sender's records (same order): which were
 * answered 2xx as emitted but never succeeded (lost), ran more than once (twice: counting
 * successful executions), landed on another output (misrouted); plus status counts.
 */
function verdicts(deliveries, records, executions, triggerName, { ackStatus }) {
	const ledger = ledgerOf(executions, triggerName);
	const expected = new Map(deliveries.map((d) => [d.id, d]));
	const answeredEmitted = new Set();
	for (const r of records)
		if (r.ok && ackStatus(r) === 'emitted') answeredEmitted.add(deliveries[r.index].id);
	const answered2xx = new Set(records.filter((r) => r.ok).map((r) => deliveries[r.index].id));
	const lost = [...answeredEmitted].filter(
		(id) => !(ledger.get(id) || []).some((e) => e.status === 'success'),
	);
	const twice = [...ledger.entries()]
		.filter(([id]) => expected.has(id))
		.filter(([, list]) => list.filter((e) => e.status === 'success').length > 1)
		.map(([id]) => id);
	const misrouted = [...ledger.entries()]
		.filter(([id]) => expected.has(id))
		.filter(([id, list]) => list.some((e) => e.output !== expected.get(id).output))
		.map(([id]) => id);
	const statusCounts = {};
	for (const e of executions) statusCounts[e.status] = (statusCounts[e.status] || 0) + 1;
	const notRun = deliveries.filter((d) => !ledger.has(d.id)).map((d) => d.id);
	// Answered 2xx, and no execution at all holds the id (not even one that never started).
	const withoutExecution = [...answered2xx].filter(
		(id) => !executions.some((e) => (e.raw || '').includes(JSON.stringify(id))),
	);
	return {
		ledger,
		answeredEmitted,
		answered2xx,
		lost,
		twice,
		misrouted,
		statusCounts,
		notRun,
		withoutExecution,
	};
}

/**
 * Splits deliveries that ran more than once by when the later run's copy arrived (its execution
 * was created): while the first run was going, or after it had ended (issue 50: must be none).
 */
function twiceByWindow(ledger, ids) {
	const split = { whileRunning: 0, afterEnded: 0 };
	for (const id of ids) {
		const runs = (ledger.get(id) || []).filter((e) => e.status === 'success');
		if (runs.length < 2) continue;
		runs.sort((a, b) => new Date(a.createdAt) - new Date(b.createdAt));
		const firstEnd = new Date(runs[0].stoppedAt).getTime();
		for (const later of runs.slice(1)) {
			if (new Date(later.createdAt).getTime() < firstEnd) split.whileRunning++;
			else split.afterEnded++;
		}
	}
	return split;
}

module.exports = { executionsFromDb, ledgerOf, verdicts, twiceByWindow };

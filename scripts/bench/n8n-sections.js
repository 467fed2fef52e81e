'use strict';
// The text `npm run bench:n8n` writes into BENCHMARKS.md for parts 1 and 2 (the tables
// themselves: n8n-report.js).

const M = require('./n8n-measure');
const R = require('./n8n-report');

/** The trigger's median executed/s over the bare Webhook's (the issue 26 target: ≥ 0.5). */
function triggerOverBare(sides) {
	const median = (xs) => {
		const sorted = [...xs].sort((a, b) => a - b);
		return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
	};
	const of = (side) => median(side.runs.map((r) => r.executedPerSec));
	const trigger = sides.find((s) => s.ours && !s.variant);
	const bare = sides.find((s) => s.label.startsWith('Webhook, respond immediately'));
	return trigger && bare ? of(trigger) / of(bare) : NaN;
}

/** The lazy run's table, with the trigger ÷ bare Webhook ratio. */
function lazyText(lazy) {
	if (!lazy) return '';
	return `
#### With \`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true\` (a second n8n, same package and runs)

${R.webhookTable(lazy.sides)}

Trigger ÷ bare Webhook, executed/s (medians): **${R.fmt(triggerOverBare(lazy.sides), 2)}×** (issue 26 target: ≥ 0.5×).
${lazy.problems.length ? `\nProblems seen in this run:\n\n${lazy.problems.map((p) => `- ${p}`).join('\n')}\n` : ''}`;
}

// ---- report ---------------------------------------------------------------------------------------

/** Create by mapping mode against the two HTTP Request variants (node time medians), per latency. */
function mappingSummary(comparisons) {
	const lines = [];
	for (const c of comparisons.filter((x) => x.sides.some((s) => s.manualMapping))) {
		const med = (side) => M.median(side.runs.map((r) => r.nodeMs));
		const auto = c.sides.find((s) => s.isDefault);
		const manual = c.sides.find((s) => s.manualMapping);
		const one = c.sides.find((s) => s.builtIn === 'one expression');
		const fields = c.sides.find((s) => s.builtIn === 'fields one by one');
		const vs = (side) =>
			`${R.secs(med(side))} s: ${R.ratio(med(one), med(side))} the one-template HTTP Request (${R.secs(med(one))} s), ${R.ratio(med(fields), med(side))} the field-by-field one (${R.secs(med(fields))} s)`;
		lines.push(
			`- ${c.title}, ${c.latencyMs ? `+${c.latencyMs} ms` : 'loopback'}, by mapping mode (node time, median; ratio = HTTP Request's time ÷ ours) — Map Automatically ${vs(auto)}; Map Each Field Manually ${vs(manual)}.`,
		);
	}
	return lines.join('\n');
}

function concurrencySummary(comparisons) {
	const lines = [];
	for (const c of comparisons.filter((x) =>
		x.sides.some((s) => !s.builtIn && !s.isDefault && !s.manualMapping),
	)) {
		const ours = c.sides
			.filter((s) => !s.builtIn && !s.manualMapping)
			.map((s) => ({
				level: Number(/Concurrent Requests (\d+)/.exec(s.label)?.[1]),
				node: M.median(s.runs.map((r) => r.nodeMs)),
				isDefault: s.isDefault,
			}))
			.sort((a, b) => a.level - b.level);
		const builtIns = c.sides
			.filter((s) => s.builtIn)
			.map((s) => `HTTP Request, ${s.builtIn}: ${R.secs(M.median(s.runs.map((r) => r.nodeMs)))} s`);
		const one = ours.find((o) => o.level === 1);
		const parts = ours.map(
			(o) =>
				`${o.level}${o.isDefault ? ' (default)' : ''}: ${R.secs(o.node)} s${one && o.level !== 1 ? ` (×${R.fmt(one.node / o.node, 1)} vs 1)` : ''}`,
		);
		lines.push(
			`- ${c.title}, ${c.latencyMs ? `+${c.latencyMs} ms` : 'loopback'}, node time by Concurrent Requests — ${parts.join('; ')}; ${builtIns.join('; ')} (all items at once).`,
		);
	}
	return lines.join('\n');
}

function sectionText({
	opts,
	info,
	comparisons,
	receivers,
	lazy,
	problems,
	cfOption,
	reeOption,
	versions,
	runSeconds,
}) {
	const date = new Date().toISOString().slice(0, 10);
	return `${R.SECTION}

This package's nodes next to what a user wires by hand from n8n's own nodes, in one run of a real
n8n (${info.n8nVersion}, sqlite, regular mode, the packed package installed into \`.n8n/nodes\` like the
Community Nodes screen does) against the simulator (own process, loopback). Measured with
\`npm run bench:n8n\` (\`scripts/bench-n8n.js\`, built on the e2e harness in \`test/e2e/lib\`).

Machine: ${info.nproc} cores (nproc), ${R.fmt(info.ramGiB, 0)} GiB RAM, ${info.cpu}; n8n ${info.n8nVersion} on Node ${info.n8nNode}
(the script itself on Node ${process.versions.node}); package at commit ${info.commit}. Run on ${date}, ${R.fmt(runSeconds / 60, 1)} min in total; 1-minute load
average (\`uptime\`) ${R.fmt(info.loadBefore, 2)} before, ${loadRange(comparisons)} at the end of each measured execution, ${R.fmt(info.loadAfter, 2)} after
(the machine is shared: read medians, not single runs).

### ${R.fmt(opts.items)} items per execution: our node vs HTTP Request + generic OAuth2 credential

Workflow: Webhook (answers when the last node finished) → Code node making ${R.fmt(opts.items)} items → the node
under test. Ours: Consent Flow → create, Real Estate Estimate → estimate → get (credential: the
package's OAuth2 types). Every create item carries all six fields (nationalId — synthetic, month
+ 80 —, lastName, organizationId, redirectUrl, webhookUrl, externalId), and every create side takes
all six from the item: our node twice, with *Map Automatically* (the item's fields by name, no
expression) and with *Map Each Field Manually* (\`{{ $json.<field> }}\` in each of its six
parameters, 6 expressions per item). Built-in: HTTP Request ${versions.httpRequest} with Authentication *Generic Credential
Type* → *OAuth2 API* (\`oAuth2Api\`, grant type Client Credentials, the same client, token URL and
scope, client authentication in the header like ours), the same \`POST /api/flow-definitions/sbl\` with
the same JSON body per item, resp. the same \`POST …/RealEstates/{knr}/{gnr}/{bnr}/{fnr}/{snr}/EvEstimate\`
(${comparisons.every((c) => c.sameRequests) ? 'checked: in every comparison every side sent the same set of requests — method, path, JSON body' : 'the request sets differed somewhere: see Problems'}).
Each built-in job in two variants, because n8n evaluates each expression parameter separately (one
evaluation however many \`{{ }}\` it holds) and that is where most of the time goes:
*one expression* — create: Send Body → JSON → Using JSON, one templated JSON body; get: one templated
URL; *fields one by one* — create: Send Body → JSON → Using Fields Below, one body parameter per field
(each an expression reading the item, 6 per item, as our manual mapping); get: the
HTTP Request node has a single URL parameter, so mapping the identity one field per expression takes an
Edit Fields (Set 3.4, only the set fields) node before it with knr, gnr, bnr, fnr, snr as five
expressions, then the same templated URL (6 evaluations per item; ours: 5) — its node time is the sum
of both nodes' \`executionTime\`.
HTTP Request has no concurrency setting: without its Batching option it starts each item's request as
soon as the item's parameters are read, without waiting for earlier answers, and awaits them all together. *Node time* = the node's \`executionTime\` in n8n's execution data; *wall time* = the
execution's \`startedAt → stoppedAt\` (webhook, Code node and saving included). "+${opts.latency} ms" = the
simulator's latency fault on every request, token requests included. Each workflow ran once first
with a fresh credential (its token requests are the first figure in the last column; its timings are
not in the medians), then ${opts.reps} measured run${opts.reps === 1 ? '' : 's'}, interleaved (ours, built-in, the other levels, ours, built-in, …); the other
levels use the default side's credential (token already stored).
${cfOption.exists ? '' : `\nThe Consent Flow node in this build has no Concurrent Requests option (it sends one request at a time): create was measured at that default only.\n`}
${R.nodeTable(comparisons)}

${mappingSummary(comparisons)}
${concurrencySummary(comparisons)}
${
	receivers
		? ''
		: `
${nodeProblems(problems)}

This run skipped the signed deliveries (\`--no-deliveries\`): the next subsection is the previous
full run's, unchanged.
`
}${receivers ? deliveriesText({ opts, versions, receivers, problems, lazy }) : ''}`;
}

function nodeProblems(problems) {
	return problems.length
		? `Problems seen in this run:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n`
		: 'Every execution succeeded with the expected item count.';
}

function loadRange(comparisons) {
	const loads = comparisons.flatMap((c) => c.sides.flatMap((s) => s.runs.map((r) => r.load)));
	return loads.length
		? `${R.fmt(Math.min(...loads), 2)}–${R.fmt(Math.max(...loads), 2)} (median ${R.fmt(M.median(loads), 2)})`
		: '—';
}

function deliveriesText({ opts, versions, receivers, problems, lazy }) {
	return `
${R.DELIVERIES}

${R.fmt(opts.deliveries)} deliveries per run (after a warm-up of ${opts.warmDeliveries}), from ${opts.senders} concurrent senders, each on a new
connection; bodies, \`${'x-acme-sbl-signature'}\` (hex HMAC-SHA256 of the exact bytes) and headers made by the
simulator's own signer (\`test/simulator/lib/webhooks.js\`), unique webhookIds, the ten events round-robin
(consent.rejected and consent.deleted in the older envelope). ${opts.deliveryReps} run${opts.deliveryReps === 1 ? '' : 's'} per receiver, interleaved, the
order balanced over the rounds (${R.orderText(receivers.sides.length, opts.deliveryReps)}). *n8n CPU* = user + system time of n8n's whole
process group (every thread; from \`/proc\`) from the first request until the run's executions stopped, per delivery. At n8n's
defaults every receiver here is CPU-bound (rate × CPU per delivery ≈ the machine's cores); on this shared virtual machine the
CPU time per delivery rises and falls with the host's load as the rates do.
*Answered* = all HTTP answers received; *executed* = until the last of the N executions stopped
(\`stoppedAt\`, executions counted through n8n's public API, status success). Webhook ${versions.webhook},
Code 2, Switch 3.2; the do-it-yourself Code node needs \`NODE_FUNCTION_ALLOW_BUILTIN=crypto\` (set
for this n8n) and holds the secret in its code; it answers 200 before verifying (a bad signature
becomes a failed execution, not a 401). The trigger answers after verifying and recording the
webhookId (duplicate check, workflow static data, which n8n saves to its database on every emitted
delivery)${opts.dedupeOff ? '; the row with Ignore Duplicate Deliveries off shows what that memory costs' : ''}.

${R.webhookTable(receivers.sides)}

${problems.length ? `Problems seen in this run:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n` : 'Every execution succeeded with the expected item count; every delivery was answered 2xx and became exactly one successful execution.'}
${lazyText(lazy)}`;
}

module.exports = { sectionText, triggerOverBare, lazyText };

'use strict';
// What `npm run test:compat` runs and reports (issue 24): the versions, the features with the
// meaning of each mark, the e2e files of the subset, and the n8n internals probed in an install.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The versions of the matrix, oldest first. `queue`: also run the queue-mode restarts there. */
const MATRIX = [
	{ version: '1.123.81', role: 'newest 1.x' },
	{ version: '2.0.3', role: 'first 2.x line (2.0.x)' },
	{ version: '2.1.4', role: 'early 2.x' },
	{ version: '2.20.12', role: 'middle of the 2.x line' },
	{
		version: '2.41.1',
		role: 'newest 2.x that installs from the registry (what `npm test` runs)',
		queue: true,
	},
	{
		version: '2.41.3',
		label: "CLI 2.41.3 on 2.41.1's internals",
		role: "newest 2.x — CLI 2.41.3 on 2.41.1's internals (see below)",
		queue: true,
	},
];

/** A version's column heading: `n8n 2.41.3 (CLI 2.41.3 on 2.41.1's internals)` where the column is not that release as published. */
function columnLabel(v) {
	const m = MATRIX.find((x) => x.version === v);
	return m && m.label ? `n8n ${v} (${m.label})` : `n8n ${v}`;
}

/** -1, 0, 1 for dotted versions. */
function compareVersions(a, b) {
	const x = String(a).split('.').map(Number);
	const y = String(b).split('.').map(Number);
	for (let i = 0; i < Math.max(x.length, y.length); i++) {
		const d = (x[i] || 0) - (y[i] || 0);
		if (d) return d < 0 ? -1 : 1;
	}
	return 0;
}

/**
 * One meaning per mark (issue 33). A feature's rules say, per version, what is expected there
 * besides "works": `degrades` (it works with a fallback, `how` says which; `tests` = tests that
 * assert the full behaviour and may fail there without the feature being broken) or `refused`
 * (the node refuses the feature with a clear message before doing anything; its test asserts the
 * refusal). `when(version, entry)` decides, from the version or from the internals probed in it.
 */
const MARKS = [
	['✅', 'works: every test of the feature passed'],
	[
		'⚠️',
		'degrades: works, with the fallback named in the cell (details under "What degrades, and why")',
	],
	[
		'🚫',
		'refused with a clear message: the node refuses the feature before it sends anything, and says what it needs',
	],
	['❌', 'does not work: n of m tests passed (the failures are listed under "Failures")'],
];
const IMMEDIATELY_FALLBACK = {
	when: (v, e) => Boolean(e && e.hooks && e.hooks.resolvers === false),
	how: '200 when the run starts, not when stored',
};

/** Test files of the subset, run in one jest process per version (one n8n per file). */
const FILES = [
	'test/e2e/smoke.test.js',
	'test/e2e/consent-flow-node.test.js',
	'test/e2e/estimate.test.js',
	'test/e2e/trigger-loop.test.js',
	'test/e2e/compat/respond-modes.compat.js',
	'test/e2e/create-and-wait.test.js',
];
const QUEUE_FILE = 'test/e2e/queue/production.test.js';
const QUEUE_TESTS =
	/faults: the webhook process restarted \(SIGTERM\)|Create and Wait for Outcome: executions wait in Postgres/;

/** Rows of the table: each a file and optionally a test-title pattern. */
const FEATURES = [
	{
		key: 'smoke',
		name: 'Package loads as a community package (nodes, credentials)',
		file: 'smoke.test.js',
	},
	{
		key: 'consentFlow',
		name: 'Consent Flow node (create, delete, token refresh, Continue On Fail)',
		file: 'consent-flow-node.test.js',
	},
	{
		key: 'estimate',
		name: 'Real Estate Estimate node (estimates, documents, binary, 404/429/500)',
		file: 'estimate.test.js',
		// n8n-workflow up to 2.20 drops a failed request's headers (docs/compatibility.md, "What degrades")
		degrades: {
			when: (v) => compareVersions(v, '2.21.0') < 0,
			tests: /Retry-After/,
			how: 'Retry-After not seen, own backoff',
		},
	},
	{
		key: 'loop',
		name: 'Consent Flow Trigger in the consent loop (Immediately; dedupe across a restart)',
		file: 'trigger-loop.test.js',
		degrades: IMMEDIATELY_FALLBACK,
	},
	{
		key: 'immediately',
		name: 'Trigger respond mode Immediately (ack JSON, duplicate)',
		file: 'respond-modes.compat.js',
		title: /Immediately:/,
		degrades: IMMEDIATELY_FALLBACK,
	},
	{
		key: 'whenFinished',
		name: 'Trigger respond mode When the Workflow Finishes (5xx → redelivery → 2xx)',
		file: 'respond-modes.compat.js',
		title: /When the Workflow Finishes:/,
	},
	{
		key: 'createAndWait',
		name: 'Create and Wait for Outcome (outcomes, restart while waiting)',
		file: 'create-and-wait.test.js',
		title: /^(?!.*Limit Wait Time)/,
	},
	{
		key: 'limitWait',
		name: 'Create and Wait: Limit Wait Time (needs n8n 2.39 or newer)',
		file: 'create-and-wait.test.js',
		title: /Limit Wait Time/,
		// the code's own bound (nodes/ConsentFlow/flow/createAndWait.ts): n8n forwarding every output of a resumed node
		refused: {
			when: (v) => compareVersions(v, '2.39.0') < 0,
			how: 'refused before a flow is created (needs 2.39)',
		},
	},
	{
		key: 'queueRestart',
		name: 'Queue mode: a webhook process restarted under load (trigger, nothing lost)',
		file: 'production.test.js',
		title: /faults: the webhook process restarted/,
		queue: true,
	},
	{
		key: 'queueWait',
		name: 'Queue mode: Create and Wait, webhook process restarted while waiting',
		file: 'production.test.js',
		title: /Create and Wait for Outcome/,
		queue: true,
	},
];

/**
 * The n8n internals the package relies on (see docs/compatibility.md, "What degrades"), looked up in an
 * installed version's files: true = found, false = not found, null = file missing.
 */
const HOOKS = [
	{
		key: 'resolvers',
		name: "n8n-workflow's webhook-description resolvers (`Symbol.for('n8n.webhookDescriptionResolvers')`)",
		use: 'nodes/ConsentFlowTrigger/respond.ts: tells the trigger n8n answers Immediately after storing the execution',
		file: 'node_modules/n8n-workflow/dist/cjs',
		text: 'n8n.webhookDescriptionResolvers',
	},
	{
		key: 'deferOnReceived',
		name: 'n8n answers `onReceived` after `WorkflowRunner.run` (reads `webhookResponse` then)',
		use: 'ConsentFlowTrigger.node.ts: the `webhookResponse` getter records the id once the execution is stored',
		file: 'node_modules/n8n/dist/webhooks/webhook-helpers.js',
		text: 'shouldDeferOnReceivedResponse',
	},
	{
		key: 'dataChanged',
		name: "static data's change flag (`__dataChanged` of n8n-workflow's ObservableObject)",
		use: 'nodes/ConsentFlowTrigger/dedupe.ts: assigning the top-level key makes n8n save the remembered ids',
		file: 'node_modules/n8n-workflow/dist/cjs/observable-object.js',
		text: '__dataChanged',
	},
	{
		key: 'waitingStack',
		name: "the webhook context's `runExecutionData.executionData.nodeExecutionStack`",
		use: 'nodes/ConsentFlow/flow/resume-webhook.ts: un-disables the waiting node so execute() routes the outcome',
		file: 'node_modules/n8n-core/dist/execution-engine/node-execution-context/webhook-context.js',
		text: 'nodeExecutionStack',
	},
	{
		key: 'oauthPrefix',
		name: 'n8n-core prefixes token errors with "Failed to acquire OAuth2 access token"',
		use: "nodes/shared/transport/failure.ts: recognises the OAuth2 client's error texts (with or without the prefix)",
		file: 'node_modules/n8n-core/dist',
		text: 'Failed to acquire OAuth2 access token',
	},
	{
		key: 'forwardAllOutputs',
		name: 'n8n-core forwards every output of a resumed node (`metadata.forwardAllOutputs`)',
		use: 'nodes/ConsentFlow/flow/createAndWait.ts: Limit Wait Time → Wait Timed Out on its own output',
		file: 'node_modules/n8n-core/dist/execution-engine/workflow-execute.js',
		text: 'forwardAllOutputs',
	},
	{
		key: 'clientAuthText',
		name: '@n8n/client-oauth2\'s "Client authentication failed" text',
		use: 'nodes/shared/transport/failure.ts: the wrong-client-secret message',
		file: 'node_modules/@n8n/client-oauth2/dist',
		text: 'Client authentication failed',
	},
];

function probeHooks(dir) {
	const out = {};
	for (const h of HOOKS) {
		const target = path.join(dir, h.file);
		if (!fs.existsSync(target)) {
			out[h.key] = null;
			continue;
		}
		const r = spawnSync('grep', ['-rlF', '--include=*.js', h.text, target], { encoding: 'utf8' });
		const found = r.status === 0 && r.stdout.trim() !== '';
		out[h.key] = found;
	}
	return out;
}

module.exports = {
	MATRIX,
	MARKS,
	FILES,
	QUEUE_FILE,
	QUEUE_TESTS,
	FEATURES,
	HOOKS,
	columnLabel,
	compareVersions,
	probeHooks,
};

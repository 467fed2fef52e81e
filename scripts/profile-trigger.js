#!/usr/bin/env node
// Where a delivery's time goes in n8n 2.x: starts one n8n (SQLite) with the packed package under
// V8's CPU profiler, sends signed deliveries to the Consent Flow Trigger (or, with --side=header,
// to n8n's Webhook node with Header Auth; --env=NAME=value adds n8n settings), stops n8n and prints the functions with the most self
// time, grouped by package. Usage: node scripts/profile-trigger.js [--count=600] [--side=trigger|header|bare]
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startN8n } = require('../test/e2e/lib/n8n');
const { packPackage } = require('../test/e2e/lib/pkg');
const { send } = require('../test/e2e/lib/sender');
const W = require('../test/e2e/lib/workflows');
const D = require('../test/e2e/lib/deliveries');

const arg = (name, fallback) =>
	(process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || fallback;

async function main() {
	const count = Number(arg('count', 600));
	const side = arg('side', 'trigger');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbl-prof-'));
	const pkg = packPackage({ build: 'if-missing' });
	// --env=NAME=value (repeatable): extra n8n settings, e.g. N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true.
	const extra = Object.fromEntries(
		process.argv
			.filter((a) => a.startsWith('--env='))
			.map((a) => a.slice(6).split(/=(.*)/s).slice(0, 2)),
	);
	const n8n = await startN8n({
		major: '2',
		tgz: pkg.tgz,
		env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`, ...extra },
	});
	const secret = crypto.randomBytes(24).toString('hex');
	const token = crypto.randomBytes(24).toString('base64url');
	let p;
	if (side === 'trigger') {
		const cred = await n8n.createCredential({
			name: 'prof signing',
			type: 'consentFlowWebhookSigningApi',
			data: { secret, signatureHeader: '' },
		});
		const trigger = W.packageTriggerNode({ credentials: { consentFlowWebhookSigningApi: cred } });
		p = W.triggerWebhookPath(trigger);
		await n8n.deployWorkflow(W.workflow('prof trigger', [trigger], {}), { webhookPaths: [p] });
	} else {
		p = W.uniquePath('prof');
		const hook = W.webhookNode({ path: p, responseMode: 'onReceived' });
		if (side === 'header') {
			const cred = await n8n.createCredential({
				name: 'prof header',
				type: 'httpHeaderAuth',
				data: { name: 'X-Token', value: token },
			});
			hook.parameters.authentication = 'headerAuth';
			hook.credentials = { httpHeaderAuth: { id: cred.id, name: cred.name } };
		}
		await n8n.deployWorkflow(W.workflow(`prof ${side}`, [hook]), { webhookPaths: [p] });
	}
	const deliveries = D.signedDeliveries({ count, secret, tag: `p${Date.now()}` }).map((d) => ({
		...d,
		headers: { ...d.headers, 'x-token': token },
	}));
	const { totals } = await send({ urls: [n8n.webhookUrl(p)], deliveries, concurrency: 10 });
	console.log(
		`${side}: ${totals.answered2xx}/${count} answered, ${totals.deliveriesPerSecond.toFixed(1)}/s, ack p50 ${totals.ackP50Ms.toFixed(0)} ms`,
	);
	await new Promise((r) => setTimeout(r, 5000));
	await n8n.stop();
	const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
	// The main n8n process has the biggest profile (the task runner is another process).
	const file = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
	const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
	const dt = new Map();
	for (let i = 0; i < prof.samples.length; i++)
		dt.set(prof.samples[i], (dt.get(prof.samples[i]) || 0) + (prof.timeDeltas[i] || 0));
	const byPkg = new Map();
	const byFn = new Map();
	let total = 0;
	for (const node of prof.nodes) {
		const us = dt.get(node.id) || 0;
		total += us;
		const url = node.callFrame.url || '(native)';
		const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
		const pk = m
			? m[1]
			: url.startsWith('node:')
				? 'node'
				: url.includes('n8n-nodes-sbl')
					? 'n8n-nodes-sbl'
					: node.callFrame.functionName || '(other)';
		byPkg.set(pk, (byPkg.get(pk) || 0) + us);
		const fn = `${node.callFrame.functionName || '(anon)'} ${url.replace(/.*node_modules\//, '')}:${node.callFrame.lineNumber}`;
		byFn.set(fn, (byFn.get(fn) || 0) + us);
	}
	const top = (m, n) =>
		[...m.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, n)
			.map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
			.join('\n');
	console.log(
		`profile ${file} (${(total / 1e6).toFixed(1)} s sampled)\nby package:\n${top(byPkg, 25)}\nby function:\n${top(byFn, 40)}`,
	);
	fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});

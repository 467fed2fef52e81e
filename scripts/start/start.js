#!/usr/bin/env node
// `npm start`: a local n8n 2.41.1 with this package installed from its tarball (like the Community
// Nodes screen does), the SBL simulator, demo credentials pointing at the simulator, and the example
// workflows from examples/ imported (the ones with a trigger or webhook activated).
//
//   N8N_PORT          editor/webhook port (default 5678; a taken port is replaced by a free one)
//   SBL_SIM_PORT      simulator port (default 8787; same rule)
//   SBL_E2E_CACHE     cache folder (default ~/.cache/n8n-nodes-sbl); the user folder is
//                     <cache>/start-user-folder, so a second `npm start` keeps your workflows
//   SBL_START_SKIP_BUILD=1  do not run `npm run build` first
//   --queue (or SBL_START_QUEUE=1)  n8n in queue mode instead: Postgres + Redis (Debian packages,
//                     installed when missing) started as child processes, one main (the editor),
//                     one `n8n webhook` process (production webhooks) and two `n8n worker`s —
//                     the topology of the queue-mode tests (test/e2e/lib/queue.js). Started
//                     fresh each time: nothing is kept between two `npm start -- --queue`.
//
// Ctrl-C (or SIGTERM) stops n8n and the simulator by their process ids.
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const { cacheDir, ensureN8n, log } = require('../../test/e2e/lib/install');
const { packPackage } = require('../../test/e2e/lib/pkg');
const { N8n, freePort, portFree } = require('../../test/e2e/lib/n8n');
const S = require('../../test/e2e/lib/scenarios');
const W = require('../../test/e2e/lib/workflows');
const { startSimulator } = require('../../test/simulator');

const STATE_FILE = 'sbl-start-state.json';

async function pickPort(wanted, label) {
	if (await portFree(wanted)) return wanted;
	const port = await freePort();
	console.log(`! ${label} port ${wanted} is taken: using ${port} instead`);
	return port;
}

function loadState(userFolder) {
	const file = path.join(userFolder, STATE_FILE);
	if (!fs.existsSync(file)) return { credentials: {}, workflows: {} };
	return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function saveState(userFolder, state) {
	fs.writeFileSync(path.join(userFolder, STATE_FILE), JSON.stringify(state, null, 2), {
		mode: 0o600,
	});
}

/** Demo credentials for the simulator, by credential type. */
const EXAMPLE_HEADER = {
	name: 'x-sbl-example-key',
	value: 'sbl-example-key-for-the-simulator-only',
};

function demoCredentials(sim) {
	return {
		consentFlowOAuth2Api: {
			name: 'SBL Consent Flow (simulator)',
			data: S.consentCredentialData(sim),
		},
		realEstateEstimateOAuth2Api: {
			name: 'SBL Real Estate Estimate (simulator)',
			data: S.estimateCredentialData(sim),
		},
		consentFlowWebhookSigningApi: {
			name: 'SBL Webhook Signing (simulator)',
			data: { secret: sim.signingSecret, signatureHeader: sim.signatureHeader },
		},
		// The examples' entry Webhooks ask for this header (Header Auth): printed at start.
		httpHeaderAuth: {
			name: 'SBL example webhook header',
			data: { name: EXAMPLE_HEADER.name, value: EXAMPLE_HEADER.value },
		},
	};
}

/** Creates the demo credentials, or updates the ones made by an earlier `npm start`. */
async function ensureCredentials(n8n, sim, state) {
	const out = {};
	for (const [type, cred] of Object.entries(demoCredentials(sim))) {
		const known = state.credentials[type];
		if (known) {
			const r = await n8n.api(
				'PATCH',
				`/credentials/${known.id}`,
				{ name: cred.name, type, data: cred.data },
				{ raw: true },
			);
			if (r.status === 200) {
				out[type] = { id: known.id, name: cred.name };
				continue;
			}
			log(`demo credential ${known.id} could not be updated (${r.status}): creating a new one`);
		}
		const created = await n8n.createCredential({ name: cred.name, type, data: cred.data });
		out[type] = { id: created.id, name: created.name };
	}
	state.credentials = out;
	return out;
}

function isTriggerWorkflow(wf) {
	return wf.nodes.some((n) => n.type === 'n8n-nodes-base.webhook' || /trigger$/i.test(n.type));
}

/** Imports example workflows not imported before (a second start keeps the user's edits). */
async function importExamples(n8n, sim, credentials, state) {
	const values = {
		SBL_SIMULATOR_URL: sim.url,
		SBL_AUTH_URL: sim.authUrl,
		SBL_CONSENT_BASE_URL: sim.consentBaseUrl,
		SBL_ESTIMATE_BASE_URL: sim.estimateBaseUrl,
		// Production webhooks: this n8n, or the webhook process in queue mode.
		N8N_URL: n8n.webhookBases()[0],
	};
	const lines = [];
	// The data tables the examples use (sbl_applications): made once, found again on a later start.
	let dataTables = {};
	try {
		dataTables = (await W.createExampleDataTables(n8n)).tables;
	} catch (e) {
		lines.push(
			`  ! data tables not created (${e.message.slice(0, 200)}): examples that use one are skipped`,
		);
	}
	for (const file of W.listExamples()) {
		const known = state.workflows[file];
		if (known) {
			const r = await n8n.api('GET', `/workflows/${known.id}`, undefined, { raw: true });
			if (r.status === 200) {
				lines.push(
					`  ${r.json.active ? 'active  ' : 'inactive'} ${r.json.name} (kept from an earlier start)`,
				);
				continue;
			}
		}
		let wf;
		try {
			wf = W.loadExample(file, { credentials, values, dataTables });
		} catch (e) {
			lines.push(`  skipped  ${file}: ${e.message}`);
			continue;
		}
		const created = await n8n.createWorkflow(wf);
		let status = 'inactive';
		if (isTriggerWorkflow(wf)) {
			try {
				await n8n.activateWorkflow(created.id);
				status = 'active  ';
			} catch (e) {
				status = `NOT ACTIVATED (${e.message.slice(0, 200)})`;
			}
		}
		state.workflows[file] = { id: created.id };
		lines.push(`  ${status} ${wf.name}`);
	}
	return lines;
}

async function main() {
	const started = Date.now();
	if (!process.env.SBL_START_SKIP_BUILD) {
		log('npm run build');
		const r = spawnSync('npm', ['run', 'build', '--silent'], {
			cwd: ROOT,
			stdio: ['ignore', 'ignore', 'inherit'],
		});
		if (r.status !== 0) throw new Error('npm run build failed');
	}
	const install = await ensureN8n('2');
	const pkg = packPackage({ build: false });

	const userFolder = path.join(cacheDir(), 'start-user-folder');
	fs.mkdirSync(userFolder, { recursive: true });
	const state = loadState(userFolder);
	state.ownerEmail = state.ownerEmail || 'demo@sbl-demo.local';
	state.ownerPassword =
		state.ownerPassword || `Sbl-${crypto.randomBytes(6).toString('base64url')}7`;
	state.encryptionKey = state.encryptionKey || crypto.randomBytes(24).toString('hex');

	const simPort = await pickPort(Number(process.env.SBL_SIM_PORT || 8787), 'simulator');
	const n8nPort = await pickPort(Number(process.env.N8N_PORT || 5678), 'n8n');
	const brokerPort = await pickPort(
		n8nPort + 1 === simPort ? n8nPort + 2 : n8nPort + 1,
		'n8n task broker',
	);

	const queue = process.argv.includes('--queue') || process.env.SBL_START_QUEUE === '1';
	// in this process: Ctrl-C, or the end of this process, stops it with n8n
	const sim = await startSimulator({ port: simPort, webhookRetries: 8 });
	let n8n = null;
	let topology = null;
	let stopping = false;
	const stop = async (signal) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: stopping n8n (pid ${n8n ? n8n.pid : '-'}) and the simulator`);
		if (topology) await topology.stop().catch(() => {});
		else if (n8n) await n8n.stop({ keepUserFolder: true }).catch(() => {});
		await sim.close().catch(() => {});
		process.exit(0);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
	// `npm start` killed with SIGTERM exits without passing the signal on: notice that the
	// parent (npm) is gone and stop as well, so nothing is left running.
	const parentPid = process.ppid;
	setInterval(() => {
		if (process.ppid !== parentPid) stop('parent exited');
	}, 1000).unref();

	if (queue) {
		const { startQueueTopology } = require('../../test/e2e/lib/queue');
		topology = await startQueueTopology({
			major: '2',
			webhooks: 1,
			workers: 2,
			workerConcurrency: 10,
			tgz: pkg.tgz,
			mainPort: n8nPort,
			ownerEmail: state.ownerEmail,
			ownerPassword: state.ownerPassword,
			logLevel: 'info',
		});
		n8n = topology.main;
		// A fresh database each time: nothing of an earlier start applies.
		state.credentials = {};
		state.workflows = {};
	} else {
		n8n = new N8n({
			major: '2',
			tgz: pkg.tgz,
			userFolder,
			keepUserFolder: true,
			port: n8nPort,
			brokerPort,
			ownerEmail: state.ownerEmail,
			ownerPassword: state.ownerPassword,
			encryptionKey: state.encryptionKey,
			apiKey: state.apiKey,
			env: { N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'false' },
		});
		await n8n.start();
		state.apiKey = n8n.apiKey;
		saveState(userFolder, state);
	}

	const credentials = await ensureCredentials(n8n, sim, state);
	if (!queue) saveState(userFolder, state);
	const imported = await importExamples(n8n, sim, credentials, state);
	if (!queue) saveState(userFolder, state);
	const queueLines = topology
		? `
Queue mode (n8n's own distributed engine; see docs/queue-mode.md):
  main (editor)      ${n8n.url}/   production webhooks off (N8N_DISABLE_PRODUCTION_MAIN_PROCESS)
  webhook process    ${topology.webhookUrls.join(' ')}   (production URLs: <this>/webhook/…)
  workers            ${topology.workers.length} × concurrency 10
  Postgres           127.0.0.1:${topology.pg.port}  database ${topology.pg.database}, user postgres
  Redis              127.0.0.1:${topology.redis.port}
  logs               ${topology.userFolder}/n8n-<process>.log
  Started fresh: workflows and credentials made now are gone after Ctrl-C.
`
		: '';

	const c = sim.clients;
	console.log(`
n8n ${install.version} with ${pkg.name}@${pkg.version} (from ${path.basename(pkg.tgz)}) is running — ready in ${((Date.now() - started) / 1000).toFixed(0)} s

  Editor      ${n8n.url}/
  Login       ${state.ownerEmail}
  Password    ${state.ownerPassword}
  User folder ${topology ? topology.userFolder : userFolder}   (n8n log: ${n8n.logFile})
${queueLines}
Simulator ${sim.url}  (control API ${sim.controlUrl})
  identity provider  ${sim.authUrl}   realms: ${Object.keys(sim.realms).join(', ')}
  consent API        ${sim.consentBaseUrl}
  estimate API       ${sim.estimateBaseUrl}
  consent client     ${c.consent.clientId} / ${c.consent.clientSecret}
  estimate client    ${c.estimate.clientId} / ${c.estimate.clientSecret}
  signing secret     ${sim.signingSecret}   header: ${sim.signatureHeader}
  example webhooks   send the header ${EXAMPLE_HEADER.name}: ${EXAMPLE_HEADER.value}

Demo credentials: ${Object.values(credentials)
		.map((x) => x.name)
		.join(', ')}
Example workflows:
${imported.join('\n') || '  (none in examples/)'}

Ctrl-C stops ${topology ? 'every n8n process, Postgres, Redis' : 'n8n'} and the simulator.`);
	await new Promise(() => {});
}

main().catch((e) => {
	console.error(`npm start failed: ${e.stack || e.message}`);
	process.exit(1);
});

'use strict';
// Issues 25 and 27 in a real n8n: what a failure leaves in the stored execution when the service
// quotes back what it was sent. Each test uses a credential n8n has never fetched a token for, so
// n8n's OAuth2 client fetches one *during* the node's request; the simulator issues opaque tokens
// (a JWT would be caught by the redactor's JWT pattern whoever fetched it) and answers 400 or 500
// with a body echoing the bare token, the applicant's national identity number and last name
// (its `body` fault template). The execution is read back through n8n's public API:
// - the token appears nowhere in it;
// - the id and the name appear only in the items where the user put them (the Webhook node's
//   output, and the same items waiting as the next node's input), never in an error or an
//   output item of the package's node.
const crypto = require('node:crypto');
const { versions, useN8n, simFault, simRequests, simReset } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');
const { SIGNING, NODE: WAIT_NODE, waitWorkflow } = require('./lib/wait');
const { buildSyntheticNationalId } = require('../support/synthetic-ids');

jest.setTimeout(120000);

/** A synthetic test identity (month + 80): it cannot belong to a person; a new one per test. */
function syntheticId() {
	for (;;) {
		const id = buildSyntheticNationalId({
			day: crypto.randomInt(1, 29),
			month: crypto.randomInt(1, 13),
			year: crypto.randomInt(70, 100),
			individual: crypto.randomInt(0, 500),
		});
		if (id) return id;
	}
}

/** A last name that occurs in nothing else (so finding it means it was copied). */
const lastName = () => `Søbstad${crypto.randomBytes(3).toString('hex').replace(/\d/g, '')}`;

const ECHO = {
	400: '{"message":"gateway rejected Bearer {{token}}","detail":"{{token}}: nationalId {{body.nationalId}} does not match lastName {{body.lastName}}","errors":{"nationalId":["{{body.nationalId}} is not registered for {{body.lastName}}"]}}',
	500: '<html><body><h1>Internal error</h1><pre>token {{token}} applicant {{body.nationalId}} {{body.lastName}}</pre></body></html>',
};

/** Every path (a.b.0.c) of a string in `value` that contains `needle`, keys included. */
function pathsOf(value, needle, at = '', out = []) {
	if (typeof value === 'string') {
		if (value.includes(needle)) out.push(at);
	} else if (value && typeof value === 'object') {
		for (const [key, entry] of Object.entries(value)) {
			if (key.includes(needle)) out.push(`${at}.${key}#key`);
			pathsOf(entry, needle, `${at}.${key}`, out);
		}
	}
	return out;
}

/** Where the user put the applicant: the Webhook node's output, and the same items queued as input. */
const USER_PLACES = [
	/^\.data\.resultData\.runData\.Webhook\.0\.data\.main\./,
	/^\.data\.executionData\.nodeExecutionStack\.\d+\.data\.main\./,
];

describe.each(versions())('n8n %s.x: failure texts keep no token, id or name', (major) => {
	const ctx = useN8n(major, {
		simulator: true,
		simulatorOptions: { opaqueTokens: true, autoLifecycle: false },
	});
	let signing;

	beforeAll(async () => {
		signing = await ctx.n8n.createCredential({
			name: 'SBL webhook signing',
			type: SIGNING,
			data: { secret: ctx.sim.signingSecret, signatureHeader: '' },
		});
	});
	// a 400 is not retried: the faults a test did not use must not answer the next one
	beforeEach(async () => await simReset(ctx.sim));

	/** Every token the simulator issued, oldest first (its request log hides them). */
	async function issuedTokens() {
		const r = await fetch(`${ctx.sim.url}/__sim/tokens`);
		return (await r.json()).tokens;
	}

	function expectNoToken(exec, token) {
		expect(pathsOf(exec, token)).toEqual([]);
	}

	function expectOnlyWhereTheUserPutIt(exec, values) {
		for (const value of values) {
			const found = pathsOf(exec, value);
			expect(found.length).toBeGreaterThan(0); // it was in the input
			expect(found.filter((p) => !USER_PLACES.some((re) => re.test(p)))).toEqual([]);
		}
	}

	/** Runs the workflow once; returns the execution and the token n8n fetched for it. */
	async function runOnce(wf, body) {
		const before = (await ctx.n8n.executions(wf.id, { includeData: false })).length;
		const res = await ctx.n8n.callWebhook(wf.path, body);
		const [latest] = await ctx.n8n.waitForExecutions(wf.id, { count: before + 1 });
		const exec = await ctx.n8n.execution(latest.id);
		return { res, exec };
	}

	/** The one token issued for `cred`'s client since `before` tokens had been issued: this run's. */
	async function tokenOfRun(before, clientId) {
		const tokens = await issuedTokens();
		const mine = tokens.slice(before).filter((t) => t.clientId === clientId);
		expect(mine).toHaveLength(1); // a fresh credential: n8n fetched one token during the run
		expect(mine[0].token).toMatch(/^sim_/);
		return mine[0].token;
	}

	const tokenCount = async () => (await issuedTokens()).length;

	test.each([
		[400, false],
		[500, false],
		[400, true],
	])(
		'Consent Flow Create, %d echoing token, id and name (Continue On Fail %s)',
		async (status, continueOnFail) => {
			const cred = await S.consentCredential(ctx, `fresh ${status}`);
			const node = S.packageNode('consentFlow', {
				name: 'Consent Flow',
				cred,
				continueOnFail,
				parameters: {
					resource: 'flow',
					operation: 'create',
					nationalId: '={{ $json.body.nationalId }}',
					lastName: '={{ $json.body.lastName }}',
					organizationId: '={{ $json.body.organizationId }}',
					redirectUrl: 'https://bank.example.com/after-consent',
					webhookUrl: 'https://n8n.example.com/webhook/consent-events',
					additionalFields: {},
					options: { maxRetries: 1, retryDelayMs: 10 },
				},
			});
			const wf = await S.deployNodeWorkflow(ctx, node, { prefix: `echo-create-${status}` });
			const person = {
				nationalId: syntheticId(),
				lastName: lastName(),
				organizationId: '923456783',
			};
			await simFault(ctx.sim, {
				status,
				body: ECHO[status],
				count: 5,
				match: { pathPrefix: '/consent/api/' },
			});
			const before = await tokenCount();
			const { exec } = await runOnce(wf, person);
			const token = await tokenOfRun(before, cred.data.clientId);
			// the service answered with the fault (its echo), so the checks below can fail
			const requests = await simRequests(ctx.sim, { pathPrefix: '/consent/api/' });
			expect(requests.filter((r) => r.fault?.status === status).length).toBeGreaterThan(0);
			if (continueOnFail) {
				expect(exec.status).toBe('success');
				const items = S.nodeItems(exec, 'Consent Flow');
				expect(items).toHaveLength(1);
				expect(items[0].json.error).toEqual(expect.any(String));
				expect(items[0].pairedItem).toEqual({ item: 0 });
			} else {
				expect(exec.status).toBe('error');
				expect(W.executionError(exec)).toBeDefined();
			}
			expectNoToken(exec, token);
			expectOnlyWhereTheUserPutIt(exec, [person.nationalId, person.lastName]);
		},
	);

	test.each([400, 500])('Real Estate Estimate Get Basis, %d echoing the token', async (status) => {
		const cred = await S.estimateCredential(ctx, `fresh ${status}`);
		const node = S.packageNode('realEstateEstimate', {
			name: 'Real Estate Estimate',
			cred,
			parameters: {
				resource: 'estimate',
				operation: 'getBasis',
				identifyBy: 'cadastre',
				knr: '0301',
				gnr: 208,
				bnr: 12,
				options: { maxRetries: 1, retryDelayMs: 10 },
			},
		});
		const wf = await S.deployNodeWorkflow(ctx, node, { prefix: `echo-basis-${status}` });
		await simFault(ctx.sim, {
			status,
			body: ECHO[status],
			count: 5,
			match: { pathPrefix: ctx.sim.estimatePrefix },
		});
		const before = await tokenCount();
		const { exec } = await runOnce(wf, {});
		expect(exec.status).toBe('error');
		const token = await tokenOfRun(before, cred.data.clientId);
		expectNoToken(exec, token);
	});

	test('Create and Wait for Outcome, 400 echoing token, id and name', async () => {
		const cred = await S.consentCredential(ctx, 'fresh wait');
		const path = W.uniquePath('echo-wait');
		const wf = await ctx.n8n.deployWorkflow(waitWorkflow({ path, oauth: cred, signing }), {
			webhookPaths: [{ path, method: 'POST' }],
		});
		const person = {
			nationalId: syntheticId(),
			lastName: lastName(),
			organizationId: '923456783',
			redirectUrl: 'https://bank.example.com/after-consent',
			externalId: `echo-${crypto.randomBytes(3).toString('hex')}`,
		};
		await simFault(ctx.sim, {
			status: 400,
			body: ECHO[400],
			count: 5,
			match: { pathPrefix: '/consent/api/' },
		});
		const before = await tokenCount();
		const { exec } = await runOnce({ id: wf.id, path }, person);
		expect(exec.status).toBe('error');
		expect(JSON.stringify(W.executionError(exec))).toContain(WAIT_NODE);
		const token = await tokenOfRun(before, cred.data.clientId);
		expectNoToken(exec, token);
		expectOnlyWhereTheUserPutIt(exec, [person.nationalId, person.lastName]);
	});
});

'use strict';
// The Real Estate Estimate node inside a real n8n against the simulator's estimate API: every
// operation for both object forms (cadastre and housing cooperative share), compared with what
// the API answers directly; the request body built from overrides + valuation; the PDF as n8n
// binary data (stored where this n8n version stores binary data), byte-identical to the API's;
// the error messages the node's README promises (404, 500) and a 429 that is retried.
const fs = require('node:fs');
const path = require('node:path');
const { versions, useN8n, simFault, simMark, simRequests } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');

const CADASTRE = { identifyBy: 'cadastre', knr: '0301', gnr: 208, bnr: 12, fnr: 0, snr: 0 };
const CADASTRE_PATH = '/RealEstates/0301/208/12/0/0';
const CADASTRE_LABEL = 'cadastre 0301-208/12/0/0';
const SHARE = { identifyBy: 'share', organizationNumber: '987654325', shareNumber: 12 };
const SHARE_PATH = '/RealEstates/987654325/12';
const COOPERATIVE = '987654325';
const NODE = 'Real Estate Estimate';

describe.each(versions())('n8n %s.x: Real Estate Estimate node', (major) => {
	const ctx = useN8n(major, { simulator: true });
	let cred;
	const api = (p) => `${ctx.sim.estimatePrefix}${p}`;

	beforeAll(async () => {
		cred = await S.estimateCredential(ctx, 'estimate');
	});

	/** Deploys Webhook → Real Estate Estimate (resource/operation/parameters) and runs it once. */
	async function runNode(
		resource,
		operation,
		parameters = {},
		{ responseData = 'allEntries', continueOnFail = false, body = {} } = {},
	) {
		const node = S.packageNode('realEstateEstimate', {
			name: NODE,
			cred,
			continueOnFail,
			parameters: { resource, operation, ...parameters, options: {} },
		});
		const wf = await S.deployNodeWorkflow(ctx, node, {
			responseData,
			prefix: `ree-${operation.toLowerCase()}`,
		});
		return { wf, ...(await S.runWorkflow(ctx, wf, body, { apiPrefix: ctx.sim.estimatePrefix })) };
	}

	test('the packaged node lists the operations this file covers (so a new operation needs a scenario here)', async () => {
		const types = await ctx.n8n.rest('GET', '/types/nodes.json');
		const desc = types.find((t) => t.name === `${S.PKG_NAME}.realEstateEstimate`);
		expect(desc).toBeDefined();
		const ops = desc.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => p.options.map((o) => `${p.displayOptions.show.resource[0]}.${o.value}`))
			// n8n adds "Custom API Call" to nodes whose credential n8n's HTTP Request node can use
			.filter((op) => !op.endsWith('.__CUSTOM_API_CALL__'))
			.sort();
		expect(ops).toEqual([
			'document.download',
			'document.getMany',
			'estimate.get',
			'estimate.getBasis',
			'estimate.getHousingCooperative',
			'estimate.getMarketEstimate',
		]);
	});

	test("estimate → get (cadastre) sends overrides, valuation, comparables and date as the API body; output = the API's estimate", async () => {
		const run = await runNode('estimate', 'get', {
			...CADASTRE,
			overrides: {
				usableArea: 82,
				buildYear: 1937,
				numberOfBedrooms: 2,
				estateType: 'Leilighet',
				glazedBalconyUsableArea: 6.5,
			},
			valuation: {
				valuationValues: { date: '2021-06-15', price: 4150000, saleType: 'Fritt salg' },
			},
			includeComparables: true,
			estimateDate: '2024-01-15',
			simplify: false, // the raw estimate, compared with the API's
		});
		expect(run.res.status).toBe(200);
		const want = {
			usableArea: 82,
			buildYear: 1937,
			numberOfBedrooms: 2,
			estateType: 'Leilighet',
			glazedBalconyUsableArea: 6.5,
			estimateDate: '2024-01-15',
			includeComparables: true,
			valuation: { date: '2021-06-15', price: 4150000, saleType: 'Fritt salg' },
		};
		expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['POST', api(`${CADASTRE_PATH}/EvEstimate`), 200],
		]);
		expect(run.apiCalls[0].body).toEqual(want);
		expect(run.apiCalls[0].contentType).toMatch(/^application\/json/);
		expect(run.apiCalls[0]).toMatchObject({ authScheme: 'Bearer', tokenScope: 'estimate:read' });

		expect(run.res.json).toHaveLength(1);
		const out = run.res.json[0];
		expect(out.storedEstimateDocumentationId).toEqual(expect.any(Number));
		expect(out.comparables.length).toBeGreaterThanOrEqual(3);
		// Same body sent straight to the API (not stored): the same estimate.
		const direct = await S.estimateApi(ctx.sim, 'POST', `${CADASTRE_PATH}/EvEstimate`, {
			...want,
			storeEstimate: false,
		});
		expect(direct.status).toBe(200);
		const { storedEstimateDocumentationId: a, ...mine } = out;
		const { storedEstimateDocumentationId: b, ...theirs } = direct.json.data;
		expect(b).toBeNull();
		expect(mine).toEqual(theirs);
		// The overrides changed the estimate (a plain estimate differs).
		const plain = await S.estimateApi(ctx.sim, 'POST', `${CADASTRE_PATH}/EvEstimate`, {
			storeEstimate: false,
		});
		expect(plain.json.data.estimateTotalMarketValue).not.toBe(out.estimateTotalMarketValue);
		expect(S.nodeItems(run.exec, NODE).map((it) => it.pairedItem)).toEqual([{ item: 0 }]);
	});

	test('estimate → get (share) with an override and "Don\'t Store Estimate": body and output', async () => {
		const run = await runNode('estimate', 'get', {
			...SHARE,
			overrides: { floor: 3, currentCommondebt: 250000 },
			dontStoreEstimate: true,
			simplify: false,
		});
		expect(run.res.status).toBe(200);
		expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['POST', api(`${SHARE_PATH}/EvEstimate`), 200],
		]);
		expect(run.apiCalls[0].body).toEqual({
			floor: 3,
			currentCommondebt: 250000,
			storeEstimate: false,
		});
		const direct = await S.estimateApi(ctx.sim, 'POST', `${SHARE_PATH}/EvEstimate`, {
			floor: 3,
			currentCommondebt: 250000,
			storeEstimate: false,
		});
		expect(run.res.json).toEqual([direct.json.data]);
		expect(run.res.json[0].storedEstimateDocumentationId).toBeNull();
	});

	test.each([
		['getBasis', 'EvEstimateBasis'],
		['getMarketEstimate', 'MarketEstimate'],
	])(
		"estimate → %s for cadastre and share: one item = the API's data",
		async (operation, suffix) => {
			for (const [identity, p] of [
				[CADASTRE, CADASTRE_PATH],
				[SHARE, SHARE_PATH],
			]) {
				// Get Basis offers Simplify (on by default); the raw basis is compared here
				const run = await runNode(
					'estimate',
					operation,
					operation === 'getBasis' ? { ...identity, simplify: false } : identity,
				);
				expect(run.res.status).toBe(200);
				expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
					['GET', api(`${p}/${suffix}`), 200],
				]);
				const direct = await S.estimateApi(ctx.sim, 'GET', `${p}/${suffix}`);
				expect(direct.json.data).toEqual(expect.any(Object));
				expect(run.res.json).toEqual([direct.json.data]);
			}
		},
	);

	test("Simplify (on by default, n8n fills it in): at most 10 fields, the API's values; identity typed as text as in the editor", async () => {
		const types = await ctx.n8n.rest('GET', '/types/nodes.json');
		const desc = types.find((t) => t.name === `${S.PKG_NAME}.realEstateEstimate`);
		const prop = (name) => desc.properties.filter((p) => p.name === name);
		expect(prop('simplify')).toEqual([
			expect.objectContaining({
				default: true,
				displayOptions: { show: { resource: ['estimate'], operation: ['get', 'getBasis'] } },
			}),
		]);
		expect(prop('gnr')[0]).toMatchObject({ type: 'string', default: '', required: true });
		expect(prop('limit')[0]).toMatchObject({ type: 'number', default: 50 });
		// parameters as the editor saves them: numbers typed into text fields, no Simplify given
		const typed = { identifyBy: 'cadastre', knr: '0301', gnr: '208', bnr: '12' };
		const run = await runNode('estimate', 'get', { ...typed, dontStoreEstimate: true });
		expect(run.res.status).toBe(200);
		expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['POST', api(`${CADASTRE_PATH}/EvEstimate`), 200],
		]);
		const [out] = run.res.json;
		const direct = await S.estimateApi(ctx.sim, 'POST', `${CADASTRE_PATH}/EvEstimate`, {
			storeEstimate: false,
		});
		expect(Object.keys(out).length).toBeLessThanOrEqual(10);
		expect(out.object).toBe(CADASTRE_LABEL);
		for (const field of [
			'approvedTotalMarketValue',
			'approvedNetMarketValue',
			'estimateUncertaintyLevel',
			'estimateTotalMarketValue',
		]) {
			expect(out[field]).toBe(direct.json.data[field]);
		}
		expect(out).not.toHaveProperty('marketScore');
		const basis = await runNode('estimate', 'getBasis', typed);
		const rawBasis = (await S.estimateApi(ctx.sim, 'GET', `${CADASTRE_PATH}/EvEstimateBasis`)).json
			.data;
		expect(Object.keys(basis.res.json[0]).length).toBeLessThanOrEqual(10);
		expect(basis.res.json[0]).toMatchObject({
			object: CADASTRE_LABEL,
			usableArea: rawBasis.usableArea,
			valuationTotalValue: rawBasis.valuation.totalValue,
		});
	});

	test("estimate → getHousingCooperative: one item = the API's data", async () => {
		const run = await runNode('estimate', 'getHousingCooperative', {
			organizationNumber: COOPERATIVE,
		});
		expect(run.res.status).toBe(200);
		expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['GET', api(`/RealEstates/${COOPERATIVE}/EvEstimateHousingCooperative`), 200],
		]);
		const direct = await S.estimateApi(
			ctx.sim,
			'GET',
			`/RealEstates/${COOPERATIVE}/EvEstimateHousingCooperative`,
		);
		expect(run.res.json).toEqual([direct.json.data]);
		expect(run.res.json[0].approvedTotalMarketValue).toEqual(expect.any(Number));
	});

	test('document → getMany for cadastre and share: one item per stored document, paired with the input', async () => {
		for (const [identity, p] of [
			[CADASTRE, CADASTRE_PATH],
			[SHARE, SHARE_PATH],
		]) {
			const run = await runNode('document', 'getMany', identity);
			expect(run.res.status).toBe(200);
			expect(run.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
				['GET', api(`${p}/EstimateDocuments`), 200],
			]);
			const direct = await S.estimateApi(ctx.sim, 'GET', `${p}/EstimateDocuments`);
			expect(direct.json.data.length).toBeGreaterThanOrEqual(2);
			expect(run.res.json).toEqual(direct.json.data);
			expect(S.nodeItems(run.exec, NODE).map((it) => it.pairedItem)).toEqual(
				direct.json.data.map(() => ({ item: 0 })),
			);
		}
	});

	test('document → getMany with Limit 1 keeps the first document of the list (the API has no paging), Return All keeps all', async () => {
		const direct = await S.estimateApi(ctx.sim, 'GET', `${SHARE_PATH}/EstimateDocuments`);
		expect(direct.json.data.length).toBeGreaterThanOrEqual(2);
		const one = await runNode('document', 'getMany', { ...SHARE, returnAll: false, limit: 1 });
		expect(one.res.json).toEqual(direct.json.data.slice(0, 1));
		const all = await runNode('document', 'getMany', { ...SHARE, returnAll: true, limit: 1 });
		expect(all.res.json).toEqual(direct.json.data);
		expect(all.apiCalls.map((c) => [c.method, c.path, c.status])).toEqual([
			['GET', api(`${SHARE_PATH}/EstimateDocuments`), 200],
		]);
	});

	/**
	 * The PDF of a download node's first output item as n8n stored it: 2.x keeps binary data in the
	 * filesystem by default (the execution holds an id, the bytes are a file in the user folder),
	 * 1.x in memory (the execution holds the bytes as base64). Returns { mode, bytes, meta }.
	 */
	function storedBinary(exec, nodeName) {
		const [item] = S.nodeItems(exec, nodeName);
		const meta = item.binary.data;
		if (meta.id) {
			const [mode, rel] = meta.id.split(':');
			const name = path.basename(rel);
			const files = S.findFiles(
				ctx.n8n.userFolder,
				(n, full) => n === name && full.endsWith(rel.split('/').join(path.sep)),
			);
			expect(files).toHaveLength(1);
			return { mode, bytes: fs.readFileSync(files[0]), meta, file: files[0] };
		}
		return { mode: 'default', bytes: Buffer.from(meta.data, 'base64'), meta };
	}

	test("document → download: the PDF is n8n binary data, byte-identical to the API's (sha256), returned by Respond to Webhook", async () => {
		const list = await S.estimateApi(ctx.sim, 'GET', `${CADASTRE_PATH}/EstimateDocuments`);
		const id = list.json.data[0].estimateDocumentId;
		const direct = await S.requestRaw(
			'GET',
			`${ctx.sim.estimateBaseUrl}/EvEstimate/Documents/${id}`,
		);
		expect(direct.status).toBe(200);
		expect(direct.body.subarray(0, 5).toString()).toBe('%PDF-');

		const node = () =>
			S.packageNode('realEstateEstimate', {
				name: NODE,
				cred,
				parameters: {
					resource: 'document',
					operation: 'download',
					documentId: id,
					binaryPropertyName: 'data',
					options: {},
				},
			});
		const wf = await S.deployNodeWorkflow(ctx, node(), { respondBinary: true, prefix: 'ree-pdf' });
		const before = (await ctx.n8n.executions(wf.id, { includeData: false })).length;
		const res = await S.requestRaw('POST', ctx.n8n.webhookUrl(wf.path), { json: {} });
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toMatch(/^application\/pdf/);
		expect(S.sha256(res.body)).toBe(S.sha256(direct.body));

		const [e] = await ctx.n8n.waitForExecutions(wf.id, { count: before + 1 });
		const exec = await ctx.n8n.execution(e.id);
		expect(exec.status).toBe('success');
		expect(S.nodeItems(exec, NODE)[0].json).toEqual({
			documentId: id,
			fileName: `estimate-${id}.pdf`,
			mimeType: 'application/pdf',
			fileSize: direct.body.length,
		});
		const stored = storedBinary(exec, NODE);
		expect(stored.meta).toMatchObject({
			fileName: `estimate-${id}.pdf`,
			mimeType: 'application/pdf',
		});
		expect(S.sha256(stored.bytes)).toBe(S.sha256(direct.body));
		// Where n8n keeps binary data by default (N8N_DEFAULT_BINARY_DATA_MODE is not set here).
		expect(ctx.n8n.env().N8N_DEFAULT_BINARY_DATA_MODE).toBeUndefined();
		if (major === '2') {
			expect(stored.mode).toMatch(/^filesystem/);
			expect(stored.file.startsWith(ctx.n8n.userFolder)).toBe(true);
		} else {
			expect(stored.mode).toBe('default');
			expect(stored.meta.id).toBeUndefined();
		}
		console.log(
			`n8n ${ctx.n8n.version}: the PDF (${direct.body.length} bytes) is stored in binary data mode "${stored.mode}"${stored.file ? ` at ${path.relative(ctx.n8n.userFolder, stored.file)}` : ' (base64 inside the execution data)'}`,
		);

		// The Webhook node's own "first entry binary" answer: the PDF on 2.x (streamed from the
		// file); on 1.123 in memory mode n8n sends the Buffer through res.json → {"type":"Buffer","data":[…]}.
		const wf2 = await S.deployNodeWorkflow(ctx, node(), {
			responseData: 'firstEntryBinary',
			prefix: 'ree-pdf-feb',
		});
		const res2 = await S.requestRaw('POST', ctx.n8n.webhookUrl(wf2.path), { json: {} });
		expect(res2.status).toBe(200);
		if (major === '2') {
			expect(S.sha256(res2.body)).toBe(S.sha256(direct.body));
		} else {
			const parsed = JSON.parse(res2.body.toString('utf8'));
			expect(parsed.type).toBe('Buffer');
			expect(S.sha256(Buffer.from(parsed.data))).toBe(S.sha256(direct.body));
		}
	});

	test('document → download of a 3 MiB document: streamed into n8n and returned intact', async () => {
		const id = 900003;
		const direct = await S.requestRaw(
			'GET',
			`${ctx.sim.estimateBaseUrl}/EvEstimate/Documents/${id}`,
		);
		expect(direct.status).toBe(200);
		expect(Math.abs(direct.body.length - 3 * 1024 * 1024)).toBeLessThanOrEqual(4096);
		const node = S.packageNode('realEstateEstimate', {
			name: NODE,
			cred,
			parameters: {
				resource: 'document',
				operation: 'download',
				documentId: '={{ $json.body.id }}',
				binaryPropertyName: 'data',
				options: {},
			},
		});
		const wf = await S.deployNodeWorkflow(ctx, node, { respondBinary: true, prefix: 'ree-big' });
		const res = await S.requestRaw('POST', ctx.n8n.webhookUrl(wf.path), { json: { id } });
		expect(res.status).toBe(200);
		expect(res.body.length).toBe(direct.body.length);
		expect(S.sha256(res.body)).toBe(S.sha256(direct.body));
		const [e] = await ctx.n8n.waitForExecutions(wf.id);
		const exec = await ctx.n8n.execution(e.id);
		expect(S.nodeItems(exec, NODE)[0].json.fileSize).toBe(direct.body.length);
	});

	test('the example workflow estimate-collateral: get (stores the estimate) → download that document → Respond to Webhook answers with its PDF', async () => {
		const wf = W.loadExample('estimate-collateral.json', {
			credentials: { realEstateEstimateOAuth2Api: cred },
			values: {},
			pathSuffix: W.uniquePath('c'),
		});
		const p = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook').parameters.path;
		const created = await ctx.n8n.deployWorkflow(wf);
		const download = wf.nodes.find((n) => n.parameters.operation === 'download').name;

		for (const [body, sent] of [
			[{ knr: '0301', gnr: 208, bnr: 12, usableArea: 82 }, { usableArea: 82 }],
			[{ knr: '4601', gnr: 15, bnr: 3 }, undefined], // no usableArea: no body at all
		]) {
			const mark = await simMark(ctx.sim);
			const before = (await ctx.n8n.executions(created.id, { includeData: false })).length;
			const res = await S.requestRaw('POST', ctx.n8n.webhookUrl(p), { json: body });
			expect(res.status).toBe(200);
			expect(res.headers['content-type']).toMatch(/^application\/pdf/);
			const log = (await simRequests(ctx.sim, { since: mark })).filter((r) =>
				r.path.startsWith(ctx.sim.estimatePrefix),
			);
			const objectPath = `/RealEstates/${body.knr}/${body.gnr}/${body.bnr}/0/0`;
			expect(log.map((r) => [r.method, r.path.replace(/\d+$/, 'N'), r.status])).toEqual([
				['POST', api(`${objectPath}/EvEstimate`), 200],
				['GET', api('/EvEstimate/Documents/N'), 200],
			]);
			expect(log[0].body ?? undefined).toEqual(sent);
			const [e] = await ctx.n8n.waitForExecutions(created.id, { count: before + 1 });
			const exec = await ctx.n8n.execution(e.id);
			const stored = W.nodeOutput(exec, 'Get Estimate')[0].storedEstimateDocumentationId;
			expect(log[1].path).toBe(api(`/EvEstimate/Documents/${stored}`));
			const direct = await S.requestRaw(
				'GET',
				`${ctx.sim.estimateBaseUrl}/EvEstimate/Documents/${stored}`,
			);
			expect(S.sha256(res.body)).toBe(S.sha256(direct.body));
			expect(S.nodeItems(exec, download)[0].json.documentId).toBe(stored);
		}
	});

	test('404: an unknown object gives "Estimate could not be retrieved for …", an unknown document "No estimate document …"', async () => {
		const unknown = { identifyBy: 'cadastre', knr: '0301', gnr: 404, bnr: 1, fnr: 0, snr: 0 };
		const get = await runNode('estimate', 'get', unknown);
		expect(get.res.status).toBe(500);
		expect(get.exec.status).toBe('error');
		const err = W.executionError(get.exec);
		expect(err.message).toBe(
			'Item 1: Estimate could not be retrieved for cadastre 0301-404/1/0/0 (404)',
		);
		expect(String(err.httpCode)).toBe('404');
		expect(err.description).toMatch(
			/^The estimate API found nothing for POST \/RealEstates\/0301\/404\/1\/0\/0\/EvEstimate\. The API said: estimate could not be retrieved/,
		);
		expect(get.apiCalls.map((c) => c.status)).toEqual([404]); // not retried

		const doc = await runNode('document', 'download', {
			documentId: 31337,
			binaryPropertyName: 'data',
		});
		expect(doc.res.status).toBe(500);
		const docErr = W.executionError(doc.exec);
		expect(docErr.message).toBe('Item 1: No estimate document 31337 (404)');
		expect(String(docErr.httpCode)).toBe('404');
		expect(doc.apiCalls.map((c) => [c.path, c.status])).toEqual([
			[api('/EvEstimate/Documents/31337'), 404],
		]);
	});

	test('500: "The estimate API could not process the request … — contact support", not retried', async () => {
		await simFault(ctx.sim, {
			status: 500,
			count: 1,
			match: { method: 'GET', pathPrefix: api(`${CADASTRE_PATH}/EvEstimateBasis`) },
		});
		const run = await runNode('estimate', 'getBasis', CADASTRE);
		expect(run.res.status).toBe(500);
		const err = W.executionError(run.exec);
		expect(err.message).toBe(
			`Item 1: The estimate API could not process the request (500) while trying to get the estimate basis for ${CADASTRE_LABEL} — contact support`,
		);
		expect(err.description).toMatch(
			/^The service documents a 500 as an internal fault to report to its support\. The request was GET \/RealEstates\/0301\/208\/12\/0\/0\/EvEstimateBasis at \d{4}-\d\d-\d\dT[\d:.]+Z; give support this request and time\. The API said: fault \S+ injected by the simulator$/,
		);
		expect(String(err.httpCode)).toBe('500');
		expect(run.apiCalls.map((c) => [c.status, Boolean(c.fault)])).toEqual([[500, true]]);
	});

	test('429 with Retry-After: 1 once, then success: the item succeeds after exactly 2 calls (2.x waits the Retry-After, 1.x its own 0.5 s backoff)', async () => {
		const target = api(`${SHARE_PATH}/MarketEstimate`);
		await simFault(ctx.sim, {
			status: 429,
			retryAfter: 1,
			count: 1,
			match: { method: 'GET', pathPrefix: target },
		});
		const run = await runNode('estimate', 'getMarketEstimate', SHARE);
		expect(run.res.status).toBe(200);
		expect(run.exec.status).toBe('success');
		const calls = run.apiCalls.filter((c) => c.path === target);
		expect(calls.map((c) => [c.status, Boolean(c.fault)])).toEqual([
			[429, true],
			[200, false],
		]);
		const gap = Date.parse(calls[1].time) - Date.parse(calls[0].time);
		if (major === '2') {
			// Retry-After: 1 honoured.
			expect(gap).toBeGreaterThanOrEqual(900);
			expect(gap).toBeLessThan(5000);
		} else {
			// n8n 1.x wraps the failed request in a NodeApiError that keeps neither the error nor its
			// response headers, so the node never sees Retry-After and waits its own first backoff (0.5 s).
			expect(gap).toBeGreaterThanOrEqual(400);
			expect(gap).toBeLessThan(900);
		}
		console.log(`n8n ${ctx.n8n.version}: 429 with Retry-After: 1 → retried after ${gap} ms`);
		const direct = await S.estimateApi(ctx.sim, 'GET', `${SHARE_PATH}/MarketEstimate`);
		expect(run.res.json).toEqual([direct.json.data]);
	});

	// Issue 48: n8n's Retry On Fail reruns the whole node after an error: with three objects of which
	// one answers 404 it sent each good object's storing POST …/EvEstimate three times.
	describe("n8n's Retry On Fail and Continue On Fail on storing estimates", () => {
		const ITEMS = { items: [{ gnr: 208 }, { gnr: 404 }, { gnr: 209 }] };
		async function runThree(parameters, settings) {
			const node = S.packageNode('realEstateEstimate', {
				name: NODE,
				cred,
				continueOnFail: settings.continueOnFail === true,
				parameters: {
					resource: 'estimate',
					operation: 'get',
					...CADASTRE,
					gnr: '={{ $json.gnr }}',
					...parameters,
					options: {},
				},
			});
			if (settings.retryOnFail)
				Object.assign(node, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
			const wf = await S.deployNodeWorkflow(ctx, node, { fanOut: true, prefix: 'ree-retry' });
			const run = await S.runWorkflow(ctx, wf, ITEMS, { apiPrefix: ctx.sim.estimatePrefix });
			return { ...run, posts: run.apiCalls.filter((c) => c.method === 'POST') };
		}

		test('Retry On Fail on a storing Get Estimate is refused with nothing sent, naming the setting', async () => {
			const run = await runThree({}, { retryOnFail: true });
			expect(run.exec.status).toBe('error');
			const err = W.executionError(run.exec);
			expect(err.message).toMatch(/^Turn off "Retry On Fail" in this node's Settings: /);
			expect(err.message).toContain('"Don\'t Store Estimate"');
			expect(err.description).toContain('Continue On Fail');
			expect(run.log).toEqual([]); // no token, no estimate
		});

		test("with Don't Store Estimate, Retry On Fail is allowed (n8n reruns the node: nothing is stored)", async () => {
			const run = await runThree({ dontStoreEstimate: true }, { retryOnFail: true });
			expect(run.exec.status).toBe('error');
			expect(W.executionError(run.exec).message).toMatch(/Estimate could not be retrieved/);
			expect(run.posts.length).toBeGreaterThan(3); // the reruns n8n makes
			for (const post of run.posts) expect(post.body).toEqual({ storeEstimate: false });
		});

		test('Continue On Fail with one 404 among three: each POST sent once, three output items', async () => {
			const run = await runThree({}, { continueOnFail: true });
			expect(run.exec.status).toBe('success');
			expect(run.posts.map((c) => [c.path, c.status])).toEqual(
				expect.arrayContaining([
					[api('/RealEstates/0301/208/12/0/0/EvEstimate'), 200],
					[api('/RealEstates/0301/404/12/0/0/EvEstimate'), 404],
					[api('/RealEstates/0301/209/12/0/0/EvEstimate'), 200],
				]),
			);
			expect(run.posts).toHaveLength(3);
			const out = W.nodeOutput(run.exec, NODE);
			expect(out).toHaveLength(3);
			expect(out.filter((json) => json.error !== undefined)).toHaveLength(1);
		});
	});
});

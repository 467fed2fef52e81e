'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startSimulator } = require('./index');
const { token, call, checkPdfStructure } = require('./helpers');

let sim;
let good;
let noScope;
let consentToken;
beforeAll(async () => {
	sim = await startSimulator({ autoLifecycle: false });
	good = await token(sim, 'estimate');
	noScope = await token(sim, 'estimateNoScope');
	consentToken = await token(sim, 'consent');
});
afterAll(() => sim.close());

const FORMS = [
	{
		form: 'cadastre',
		object: '/RealEstates/0301/12/34/0/0',
		unknown: '/RealEstates/0301/404/34/0/0',
	},
	{ form: 'share', object: '/RealEstates/923456783/12', unknown: '/RealEstates/923456783/404' },
];
const COOPERATIVE = '/RealEstates/923456783/EvEstimateHousingCooperative';
const api = (p) => `${sim.estimateBaseUrl}${p}`;
const estimate = (objectPath, json, bearer = good) =>
	call(api(`${objectPath}/EvEstimate`), { method: 'POST', token: bearer, json });
const fetchPdf = async (id) => {
	const res = await fetch(api(`/EvEstimate/Documents/${id}`));
	return { res, buf: Buffer.from(await res.arrayBuffer()) };
};
const isInt = (v) => Number.isInteger(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

const WEIGHTED_FIELDS = [
	'approvedNetMarketValue',
	'approvedTotalMarketValue',
	'commondebtLastUpdated',
	'commondebtLastUpdatedDate',
	'comparables',
	'estimateAdjustmentType',
	'estimateNetMarketValueRounded',
	'estimateTotalMarketValue',
	'estimateUncertaintyLevel',
	'generalForeclosureDiscount',
	'marketScore',
	'maxValueLimit',
	'storedEstimateDocumentationId',
];
const BASIS_FIELDS = [
	'buildYear',
	'currentCommondebt',
	'estateType',
	'externalUsableArea',
	'floor',
	'glazedBalconyUsableArea',
	'grossArea',
	'internalUsableArea',
	'ownershipType',
	'primaryArea',
	'siteArea',
	'siteType',
	'usableArea',
	'valuation',
];

describe.each(FORMS)('$form form', ({ form, object, unknown }) => {
	test('EvEstimate: 200 with every WeightedEstimateResponseDto field', async () => {
		const res = await estimate(object);
		expect(res.status).toBe(200);
		expect(Object.keys(res.body)).toEqual(['data']);
		const d = res.body.data;
		expect(Object.keys(d).sort()).toEqual([...WEIGHTED_FIELDS].sort());
		for (const f of [
			'approvedNetMarketValue',
			'approvedTotalMarketValue',
			'estimateNetMarketValueRounded',
			'estimateTotalMarketValue',
			'storedEstimateDocumentationId',
		]) {
			expect(isInt(d[f])).toBe(true);
		}
		expect(d.estimateTotalMarketValue).toBeGreaterThan(500000);
		expect(d.estimateTotalMarketValue).toBeLessThan(60000000);
		expect(d.estimateUncertaintyLevel).toBeGreaterThanOrEqual(1);
		expect(d.estimateUncertaintyLevel).toBeLessThanOrEqual(7);
		expect(d.approvedNetMarketValue).toBe(
			d.approvedTotalMarketValue - (d.commondebtLastUpdated ?? 0),
		);
		expect(isInt(d.marketScore.area) && isInt(d.marketScore.municipality)).toBe(true);
		expect(d.comparables).toBeNull();
		if (form === 'share') {
			expect(isInt(d.commondebtLastUpdated)).toBe(true);
			expect(Date.parse(d.commondebtLastUpdatedDate)).not.toBeNaN();
		}
	});

	test('EvEstimateBasis: 200 with every EstimateBasisResponseDto field', async () => {
		const res = await call(api(`${object}/EvEstimateBasis`), { token: good });
		expect(res.status).toBe(200);
		const d = res.body.data;
		expect(Object.keys(d).sort()).toEqual([...BASIS_FIELDS].sort());
		expect(isInt(d.buildYear) && isInt(d.floor)).toBe(true);
		for (const f of [
			'currentCommondebt',
			'externalUsableArea',
			'glazedBalconyUsableArea',
			'grossArea',
			'internalUsableArea',
			'primaryArea',
			'siteArea',
			'usableArea',
		]) {
			expect(isNum(d[f])).toBe(true);
		}
		expect(d.valuation).toEqual({
			commonDebt: expect.any(Number),
			date: expect.any(String),
			price: expect.any(Number),
			totalValue: d.valuation.price + d.valuation.commonDebt,
			type: expect.any(String),
		});
		expect(d.ownershipType).toBe(form === 'share' ? 'Andel' : d.ownershipType);
	});

	test('MarketEstimate: 200 with low < estimate < high, with or without a token', async () => {
		const anonymous = await call(api(`${object}/MarketEstimate`));
		expect(anonymous.status).toBe(200);
		const d = anonymous.body.data;
		expect(isInt(d.estimate) && isInt(d.estimateLow) && isInt(d.estimateHigh)).toBe(true);
		expect(d.estimateLow).toBeLessThan(d.estimate);
		expect(d.estimate).toBeLessThan(d.estimateHigh);
		for (const t of ['garbage', noScope, consentToken, good]) {
			const res = await call(api(`${object}/MarketEstimate`), { token: t });
			expect(res.status).toBe(200);
			expect(res.body).toEqual(anonymous.body);
		}
	});

	test('EstimateDocuments: 2–3 seeded documents, stored estimates appended', async () => {
		const res = await call(api(`${object}/EstimateDocuments`), { token: good });
		expect(res.status).toBe(200);
		expect(Array.isArray(res.body.data)).toBe(true);
		for (const doc of res.body.data) {
			expect(Object.keys(doc).sort()).toEqual([
				'estimateDate',
				'estimateDocumentId',
				'estimateTotalMarketValue',
				'reference',
			]);
			expect(isInt(doc.estimateDocumentId) && isInt(doc.estimateTotalMarketValue)).toBe(true);
			expect(Date.parse(doc.estimateDate)).not.toBeNaN();
		}
		const stored = await estimate(object, { reference: 'ignored' });
		const after = await call(api(`${object}/EstimateDocuments`), { token: good });
		const added = after.body.data.find(
			(d) => d.estimateDocumentId === stored.body.data.storedEstimateDocumentationId,
		);
		expect(added).toMatchObject({
			estimateTotalMarketValue: stored.body.data.approvedTotalMarketValue,
		});
		const seeded = after.body.data.filter(
			(d) => d.estimateDocumentId < 5000001 || d.estimateDocumentId >= 10000000,
		);
		expect(seeded.length).toBeGreaterThanOrEqual(2);
		expect(seeded.length).toBeLessThanOrEqual(3);
	});

	test.each(['EstimateDocuments', 'EvEstimate', 'EvEstimateBasis'])(
		'%s: 401 without or with a foreign token, 403 without estimate:read',
		async (op) => {
			const method = op === 'EvEstimate' ? 'POST' : 'GET';
			for (const t of [null, 'garbage', consentToken]) {
				const res = await call(api(`${object}/${op}`), { method, token: t });
				expect(res.status).toBe(401);
				expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
				expect(res.body.status).toBe(401);
			}
			const forbidden = await call(api(`${object}/${op}`), { method, token: noScope });
			expect(forbidden.status).toBe(403);
			expect(forbidden.body).toMatchObject({ status: 403, title: 'Forbidden' });
		},
	);

	test('unknown object: EvEstimate 404, lists and basis answer data null', async () => {
		const res = await estimate(unknown);
		expect(res.status).toBe(404);
		expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
		for (const op of ['EstimateDocuments', 'EvEstimateBasis', 'MarketEstimate']) {
			const r = await call(api(`${unknown}/${op}`), { token: good });
			expect(r.status).toBe(200);
			expect(r.body).toEqual({ data: null });
		}
	});

	test('deterministic per object, also across simulator instances', async () => {
		const a = await estimate(object, { storeEstimate: false });
		const b = await estimate(object, { storeEstimate: false });
		expect(b.body).toEqual(a.body);
		const other = await startSimulator({ autoLifecycle: false });
		try {
			const t = await token(other, 'estimate');
			const c = await call(`${other.estimateBaseUrl}${object}/EvEstimate`, {
				method: 'POST',
				token: t,
				json: { storeEstimate: false },
			});
			expect(c.body).toEqual(a.body);
			const basisHere = await call(api(`${object}/EvEstimateBasis`), { token: good });
			const basisThere = await call(`${other.estimateBaseUrl}${object}/EvEstimateBasis`, {
				token: t,
			});
			expect(basisThere.body).toEqual(basisHere.body);
			const docsHere = await call(api(`${object}/EstimateDocuments`), { token: good });
			const docsThere = await call(`${other.estimateBaseUrl}${object}/EstimateDocuments`, {
				token: t,
			});
			expect(docsThere.body.data[docsThere.body.data.length - 1]).toEqual(
				docsHere.body.data[docsHere.body.data.length - 1],
			);
		} finally {
			await other.close();
		}
		const elsewhere = await estimate(
			form === 'share' ? '/RealEstates/923456783/13' : '/RealEstates/0301/12/35/0/0',
			{ storeEstimate: false },
		);
		expect(elsewhere.body.data.estimateTotalMarketValue).not.toBe(
			a.body.data.estimateTotalMarketValue,
		);
	});
});

describe('EvEstimate request body', () => {
	const obj = '/RealEstates/4601/120/7/0/3';
	const value = async (json) => {
		const res = await estimate(obj, { storeEstimate: false, ...json });
		expect(res.status).toBe(200);
		return res.body.data.estimateTotalMarketValue;
	};
	let basis;
	let base;
	beforeAll(async () => {
		basis = (await call(api(`${obj}/EvEstimateBasis`), { token: good })).body.data;
		base = await value({});
	});

	test('usableArea and primaryArea overrides scale the value', async () => {
		const doubled = await value({ usableArea: Math.round(basis.usableArea * 2) });
		expect(doubled / base).toBeGreaterThan(1.7);
		const smaller = await value({ primaryArea: basis.primaryArea / 2 });
		expect(smaller / base).toBeLessThan(0.65);
	});

	test('a newer buildYear raises the value', async () => {
		expect(await value({ buildYear: 2023 })).toBeGreaterThan(await value({ buildYear: 1950 }));
	});

	test('valuation.price pulls the estimate toward the price', async () => {
		const date = new Date().toISOString();
		const high = await value({
			valuation: { date, price: base * 2, saleType: 'Fritt salg', commondebt: 0 },
		});
		const low = await value({
			valuation: { date, price: base / 2, saleType: 'Fritt salg', commondebt: 0 },
		});
		expect(high).toBeGreaterThan(base * 1.3);
		expect(low).toBeLessThan(base * 0.85);
	});

	test('a past estimateDate lowers the value by the yearly index', async () => {
		const threeYearsAgo = new Date(Date.now() - 3 * 365.25 * 86400000).toISOString();
		const past = await value({ estimateDate: threeYearsAgo });
		expect(past / base).toBeGreaterThan(0.85);
		expect(past / base).toBeLessThan(0.9);
	});

	test('includeComparables adds comparables with nested objects', async () => {
		const res = await estimate(obj, { includeComparables: true, storeEstimate: false });
		const list = res.body.data.comparables;
		expect(list.length).toBeGreaterThanOrEqual(3);
		for (const c of list) {
			expect(c).toMatchObject({
				address: {
					municipality: 'Bergen',
					postOffice: { code: expect.any(Number), name: expect.any(String) },
					streetName: expect.any(String),
					streetNumber: expect.any(Number),
				},
				cadastre: {
					knr: 4601,
					gnr: expect.any(Number),
					bnr: expect.any(Number),
					fnr: expect.any(Number),
					snr: expect.any(Number),
					municipality: 'Bergen',
				},
				location: { latitude: expect.any(Number), longitude: expect.any(Number) },
				valuation: {
					commonDebt: expect.any(Number),
					date: expect.any(String),
					price: expect.any(Number),
					totalValue: expect.any(Number),
					type: expect.any(String),
				},
			});
			expect(Math.abs(c.location.latitude - 60.39)).toBeLessThan(0.1);
			for (const f of [
				'buildYear',
				'externalUsableArea',
				'glazedBalconyUsableArea',
				'internalUsableArea',
				'lowHeightFloorArea',
				'openTerraceAndBalconyArea',
				'primaryArea',
				'squaremeterPrice',
			]) {
				expect(typeof c[f]).toBe('number');
			}
			expect('housingCooperativeShareIdentity' in c).toBe(true);
		}
		const share = await estimate('/RealEstates/923456783/12', {
			includeComparables: true,
			storeEstimate: false,
		});
		expect(share.body.data.comparables[0].housingCooperativeShareIdentity).toEqual({
			housingCooperative: { name: expect.any(String), organizationNumber: expect.any(Number) },
			shareNumber: expect.any(Number),
		});
	});

	test('storeEstimate false stores nothing; otherwise every call stores a new document', async () => {
		const list = async () =>
			(await call(api(`${obj}/EstimateDocuments`), { token: good })).body.data.length;
		const before = await list();
		const notStored = await estimate(obj, { storeEstimate: false });
		expect(notStored.body.data.storedEstimateDocumentationId).toBeNull();
		expect(await list()).toBe(before);
		const first = await estimate(obj);
		const second = await call(api(`${obj}/EvEstimate`), { method: 'POST', token: good });
		expect(first.body.data.storedEstimateDocumentationId).toEqual(expect.any(Number));
		expect(second.body.data.storedEstimateDocumentationId).toBe(
			first.body.data.storedEstimateDocumentationId + 1,
		);
		expect(await list()).toBe(before + 2);
	});

	test('body content types: application/json, text/json and application/*+json accepted; others refused', async () => {
		const body = JSON.stringify({ storeEstimate: false, usableArea: 100 });
		const values = [];
		for (const type of [
			'application/json',
			'text/json; charset=utf-8',
			'application/vnd.ev+json',
		]) {
			const res = await call(api(`${obj}/EvEstimate`), {
				method: 'POST',
				token: good,
				headers: { 'content-type': type },
				body,
			});
			expect(res.status).toBe(200);
			values.push(res.body.data.estimateTotalMarketValue);
		}
		expect(new Set(values).size).toBe(1);
		expect(values[0]).not.toBe(base);
		const form = await call(api(`${obj}/EvEstimate`), {
			method: 'POST',
			token: good,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'usableArea=1',
		});
		expect(form.status).toBe(415);
	});

	test('malformed JSON or wrongly typed fields → 400', async () => {
		const malformed = await call(api(`${obj}/EvEstimate`), {
			method: 'POST',
			token: good,
			headers: { 'content-type': 'application/json' },
			body: '{"usableArea":',
		});
		expect(malformed.status).toBe(400);
		const typed = await estimate(obj, {
			usableArea: 80.5,
			includeComparables: 'yes',
			valuation: { price: 1 },
		});
		expect(typed.status).toBe(400);
		expect(Object.keys(typed.body.errors).sort()).toEqual([
			'includeComparables',
			'usableArea',
			'valuation.date',
			'valuation.saleType',
		]);
	});

	test('names are case-insensitive and numbers may be strings (System.Text.Json web defaults)', async () => {
		const doubled = Math.round(basis.usableArea * 2);
		expect(await value({ UsableArea: String(doubled) })).toBe(await value({ usableArea: doubled }));
	});
});

describe('EvEstimateHousingCooperative', () => {
	test('200 with its fields; 401 and 403', async () => {
		const res = await call(api(COOPERATIVE), { token: good });
		expect(res.status).toBe(200);
		expect(res.body.data).toEqual({
			approvedTotalMarketValue: expect.any(Number),
			estimateUncertaintyLevel: expect.any(Number),
		});
		expect(res.body.data.approvedTotalMarketValue).toBeGreaterThan(10000000);
		expect(isInt(res.body.data.estimateUncertaintyLevel)).toBe(true);
		expect((await call(api(COOPERATIVE))).status).toBe(401);
		expect((await call(api(COOPERATIVE), { token: noScope })).status).toBe(403);
		const again = await call(api(COOPERATIVE), { token: good });
		expect(again.body).toEqual(res.body);
	});
});

describe('routing', () => {
	test('non-numeric parameters, wrong segment counts and unknown operations → 404', async () => {
		for (const p of [
			'/RealEstates/0301/x/34/0/0/EvEstimateBasis',
			'/RealEstates/0301/12/34/0/EvEstimateBasis',
			'/RealEstates/923456783/12/Nothing',
			'/RealEstates/923456783/MarketEstimate',
			'/RealEstates/abc/EvEstimateHousingCooperative',
			'/Elsewhere',
		]) {
			const res = await call(api(p), { token: good });
			expect(res.status).toBe(404);
		}
	});

	test('wrong method → 405 with Allow', async () => {
		const res = await call(api('/RealEstates/0301/12/34/0/0/EvEstimate'), { token: good });
		expect(res.status).toBe(405);
		expect(res.headers.get('allow')).toBe('POST');
	});

	test('JSON is offered as text/json when asked for', async () => {
		const res = await call(api('/RealEstates/0301/12/34/0/0/MarketEstimate'), {
			headers: { accept: 'text/json' },
		});
		expect(res.headers.get('content-type')).toMatch(/^text\/json/);
		const def = await call(api('/RealEstates/0301/12/34/0/0/MarketEstimate'));
		expect(def.headers.get('content-type')).toMatch(/^application\/json/);
	});

	test('estimatePrefix option moves the API', async () => {
		const other = await startSimulator({ estimatePrefix: 'ev/v2/', autoLifecycle: false });
		try {
			expect(other.estimateBaseUrl).toBe(`${other.url}/ev/v2`);
			expect(
				(await call(`${other.estimateBaseUrl}/RealEstates/0301/12/34/0/0/MarketEstimate`)).status,
			).toBe(200);
			expect(
				(await call(`${other.url}/estimate/v1/RealEstates/0301/12/34/0/0/MarketEstimate`)).status,
			).toBe(404);
		} finally {
			await other.close();
		}
	});
});

describe('EvEstimate/Documents/{id} (PDF)', () => {
	let docId;
	beforeAll(async () => {
		const list = await call(api('/RealEstates/0301/12/34/0/0/EstimateDocuments'), { token: good });
		docId = list.body.data[list.body.data.length - 1].estimateDocumentId;
	});

	test('a listed document is a valid PDF with headers, deterministic bytes, no token needed', async () => {
		const { res, buf } = await fetchPdf(docId);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/pdf');
		expect(res.headers.get('content-disposition')).toBe(
			`attachment; filename="estimate-${docId}.pdf"`,
		);
		expect(Number(res.headers.get('content-length'))).toBe(buf.length);
		const { errors, offsets } = checkPdfStructure(buf);
		expect(errors).toEqual([]);
		expect(offsets.length).toBeGreaterThanOrEqual(5);
		const text = buf.toString('latin1');
		expect(text).toContain(`EV estimate document ${docId}`);
		expect(text).toMatch(/Estimated total market value: NOK [\d ]+/);
		const again = await fetchPdf(docId);
		const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
		expect(sha(again.buf)).toBe(sha(buf));
		const withBadToken = await fetch(api(`/EvEstimate/Documents/${docId}`), {
			headers: { authorization: 'Bearer garbage' },
		});
		expect(withBadToken.status).toBe(200);
		await withBadToken.arrayBuffer();
	});

	test('the document of a stored estimate names its value', async () => {
		const est = await estimate('/RealEstates/5001/77/8/0/0', {});
		const id = est.body.data.storedEstimateDocumentationId;
		const { res, buf } = await fetchPdf(id);
		expect(res.status).toBe(200);
		expect(checkPdfStructure(buf).errors).toEqual([]);
		const nok = String(est.body.data.approvedTotalMarketValue).replace(
			/\B(?=(\d{3})+(?!\d))/g,
			' ',
		);
		expect(buf.toString('latin1')).toContain(`NOK ${nok}`);
	});

	test('400 for ids that are not positive 32-bit integers; 404 for unknown ids', async () => {
		for (const bad of ['abc', '0', '-5', '1.5', '99999999999']) {
			const { res } = await fetchPdf(bad);
			expect(res.status).toBe(400);
		}
		for (const unknown of ['4999999', '900000', '900101']) {
			const { res } = await fetchPdf(unknown);
			expect(res.status).toBe(404);
		}
	});

	test('large document 900050 streams ~50 MB of valid PDF', async () => {
		const res = await fetch(api('/EvEstimate/Documents/900050'));
		expect(res.status).toBe(200);
		const length = Number(res.headers.get('content-length'));
		expect(Math.abs(length - 50 * 1024 * 1024)).toBeLessThan(4096);
		const hash = crypto.createHash('sha256');
		let received = 0;
		let head = null;
		let tail = Buffer.alloc(0);
		for await (const chunk of res.body) {
			const c = Buffer.from(chunk);
			if (!head) head = c.subarray(0, 2048);
			received += c.length;
			hash.update(c);
			tail = Buffer.concat([tail, c]).subarray(-4096);
		}
		expect(received).toBe(length);
		expect(head.toString('latin1').startsWith('%PDF-1.4')).toBe(true);
		expect(tail.toString('latin1')).toMatch(/%%EOF\n$/);
		const startxref = Number(/startxref\n(\d+)\n%%EOF/.exec(tail.toString('latin1'))[1]);
		expect(startxref).toBe(
			length - (tail.length - tail.toString('latin1').lastIndexOf('xref\n0 ')),
		);
	}, 20000);

	test('a large document is byte-identical on each request and passes the structure check', async () => {
		const a = await fetchPdf(900002);
		const b = await fetchPdf(900002);
		expect(Math.abs(a.buf.length - 2 * 1024 * 1024)).toBeLessThan(4096);
		expect(a.buf.equals(b.buf)).toBe(true);
		expect(checkPdfStructure(a.buf).errors).toEqual([]);
		expect(a.buf.toString('latin1')).toContain('/Subtype /Image');
	});

	const pdftoppm = (() => {
		try {
			execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
			return true;
		} catch {
			return false;
		}
	})();
	(pdftoppm ? test : test.skip)(
		'pdftoppm renders a small and a large document without errors',
		async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbl-sim-pdf-'));
			try {
				for (const id of [docId, 900002]) {
					const file = path.join(dir, `${id}.pdf`);
					fs.writeFileSync(file, (await fetchPdf(id)).buf);
					const out = execFileSync(
						'pdftoppm',
						['-r', '20', '-png', '-singlefile', file, path.join(dir, `p${id}`)],
						{ stdio: ['ignore', 'pipe', 'pipe'] },
					);
					expect(out.length).toBe(0);
					expect(fs.statSync(path.join(dir, `p${id}.png`)).size).toBeGreaterThan(100);
				}
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	);
});

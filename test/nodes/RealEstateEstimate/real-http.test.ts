/**
 * The node on n8n's own machinery instead of the test context: HTTP through n8n's OutboundHttp
 * (@n8n/backend-network, axios — where httpRequestWithAuthentication ends), errors wrapped the
 * way n8n wraps them, and PDFs into n8n-core's real BinaryDataService in filesystem mode. Checks
 * that the messages and the streaming download hold with real axios errors and streams.
 */
import { createHash } from 'node:crypto';
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { addFault, useSimulator } from '../../support/simulator';
import { cadastre, directPdf, estimateCredentials, requestLog, share, ORG } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bench = require('../../support/n8n-context') as {
	initBinaryData(mode: 'filesystem' | 'memory'): Promise<string>;
	readStoredBinary(storagePath: string, binary: IDataObject): Buffer;
	removeBinaryData(storagePath: string): void;
	createBenchContext(options: {
		parameters: IDataObject | IDataObject[];
		itemCount: number;
		credentials: IDataObject;
	}): IExecuteFunctions;
};

const sim = useSimulator({ beforeEach: 'reset' });
let storagePath: string;
beforeAll(async () => {
	storagePath = await bench.initBinaryData('filesystem');
});
afterAll(() => {
	bench.removeBinaryData(storagePath);
});

async function run(
	parameters: IDataObject | IDataObject[],
	client = 'estimate',
	extra: Record<string, string> = {},
) {
	const ctx = bench.createBenchContext({
		parameters,
		itemCount: Array.isArray(parameters) ? parameters.length : 1,
		credentials: estimateCredentials(sim, client, extra) as IDataObject,
	});
	const [output] = (await new RealEstateEstimate().execute.call(ctx)) as INodeExecutionData[][];
	return output;
}

async function runError(
	parameters: IDataObject,
	client = 'estimate',
	extra: Record<string, string> = {},
) {
	try {
		await run(parameters, client, extra);
	} catch (error) {
		return error as NodeApiError;
	}
	throw new Error('expected an error');
}

test('404 for an estimate (JSON error body through axios)', async () => {
	const error = await runError({
		resource: 'estimate',
		operation: 'get',
		...cadastre('0301', 404, 1),
	});
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toBe(
		'Item 1: Estimate could not be retrieved for cadastre 0301-404/1/0/0 (404)',
	);
	expect(error.httpCode).toBe('404');
});

test('404 for a document requested as a stream', async () => {
	const error = await runError({
		resource: 'document',
		operation: 'download',
		documentId: 4242,
		binaryPropertyName: 'data',
	});
	expect(error.message).toBe('Item 1: No estimate document 4242 (404)');
});

test('403 without the scope', async () => {
	const error = await runError(
		{ resource: 'estimate', operation: 'getBasis', ...share(ORG.a, 1) },
		'estimateNoScope',
		{ scope: '' },
	);
	expect(error.message).toBe(
		`Item 1: The estimate API did not authorize the request (403) while trying to get the estimate basis for housing cooperative ${ORG.a} share 1`,
	);
});

test('429 with Retry-After is retried, then succeeds', async () => {
	await addFault(sim, {
		status: 429,
		retryAfter: 0,
		count: 2,
		match: { pathPrefix: `${sim.estimatePrefix}/RealEstates/0301/208/` },
	});
	const output = await run({
		resource: 'estimate',
		operation: 'getMarketEstimate',
		...cadastre('0301', 208, 12),
	});
	expect(typeof output[0].json.estimate).toBe('number');
	expect((await requestLog(sim)).map((r) => r.status)).toEqual([429, 429, 200]);
});

test('the PDF is streamed to disk by n8n-core (filesystem mode), byte for byte', async () => {
	const output = await run({
		resource: 'document',
		operation: 'download',
		documentId: 900004,
		binaryPropertyName: 'pdf',
	});
	const binary = output[0].binary!.pdf;
	expect(binary.id).toMatch(/^filesystem(-v2)?:/); // stored as a file, not kept in the item
	expect(binary.data).not.toMatch(/^JVBER/); // no base64 PDF in the item
	const stored = bench.readStoredBinary(storagePath, binary as unknown as IDataObject);
	const served = await directPdf(sim, 900004);
	const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
	expect(sha(stored)).toBe(sha(served));
	expect(output[0].json).toEqual({
		documentId: 900004,
		fileName: 'estimate-900004.pdf',
		mimeType: 'application/pdf',
		fileSize: served.length,
	});
	expect(binary.bytes).toBe(served.length);
});

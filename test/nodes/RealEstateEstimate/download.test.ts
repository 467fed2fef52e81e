/**
 * document → download: the PDF arrives as n8n binary data, byte for byte what the service
 * serves (sha256 against a direct fetch), requested as a stream.
 */
import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { addFault, useSimulator } from '../../support/simulator';
import type { SimulatorFault } from '../../support/simulator';
import {
	cadastre,
	directPdf,
	estimateCredentials,
	requestLog,
	runNode,
	runNodeError,
} from './helpers';
import type { TestContext } from '../../support/execute-context';

const sim = useSimulator({ beforeEach: 'clearLog' });

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function storedDocumentId(): Promise<number> {
	const { output } = await runNode(sim, {
		resource: 'document',
		operation: 'getMany',
		...cadastre('0301', 208, 12),
	});
	return output[0].json.estimateDocumentId as number;
}

test('a stored document: the binary holds exactly the PDF the service serves', async () => {
	const documentId = await storedDocumentId();
	const { output } = await runNode(sim, {
		resource: 'document',
		operation: 'download',
		documentId,
		binaryPropertyName: 'data',
	});
	const served = await directPdf(sim, documentId);
	expect(output).toHaveLength(1);
	const binary = output[0].binary!.data;
	const received = Buffer.from(binary.data, 'base64');
	expect(sha256(received)).toBe(sha256(served));
	expect(received.subarray(0, 5).toString('latin1')).toBe('%PDF-');
	expect(binary.mimeType).toBe('application/pdf');
	expect(binary.fileName).toBe(`estimate-${documentId}.pdf`);
	expect(output[0].json).toEqual({
		documentId,
		fileName: `estimate-${documentId}.pdf`,
		mimeType: 'application/pdf',
		fileSize: served.length,
	});
	expect(output[0].pairedItem).toEqual({ item: 0 });
	const log = await requestLog(sim);
	expect(log.map((r) => `${r.method} ${r.path}`)).toContain(
		`GET ${sim.estimatePrefix}/EvEstimate/Documents/${documentId}`,
	);
});

test('a 3 MB document arrives whole, under the chosen binary property', async () => {
	const { output } = await runNode(sim, {
		resource: 'document',
		operation: 'download',
		documentId: 900003,
		binaryPropertyName: 'pdf',
	});
	const served = await directPdf(sim, 900003);
	expect(served.length).toBeGreaterThan(3 * 1024 * 1024 - 2048);
	expect(Object.keys(output[0].binary!)).toEqual(['pdf']);
	const received = Buffer.from(output[0].binary!.pdf.data, 'base64');
	expect(received.length).toBe(served.length);
	expect(sha256(received)).toBe(sha256(served));
	expect(output[0].json.fileSize).toBe(served.length);
});

test('the node hands a stream (not a buffer) to prepareBinaryData and asks for encoding: stream', async () => {
	const handed: unknown[] = [];
	const encodings: unknown[] = [];
	await runNode(
		sim,
		{ resource: 'document', operation: 'download', documentId: 900001, binaryPropertyName: 'data' },
		{
			prepare(ctx) {
				const helpers = ctx.helpers as IExecuteFunctions['helpers'];
				const prepare = helpers.prepareBinaryData;
				helpers.prepareBinaryData = async (input, fileName, mimeType) => {
					handed.push(input);
					return await prepare(input, fileName, mimeType);
				};
				const request = helpers.httpRequestWithAuthentication;
				helpers.httpRequestWithAuthentication = async function (
					this: unknown,
					type,
					options,
					...rest
				) {
					encodings.push(options.encoding);
					return await request.call(this as IExecuteFunctions, type, options, ...rest);
				};
			},
		},
	);
	expect(encodings).toEqual(['stream']);
	expect(handed).toHaveLength(1);
	expect(Buffer.isBuffer(handed[0])).toBe(false);
	expect(typeof (handed[0] as { pipe?: unknown }).pipe).toBe('function');
});

test('several downloads keep their order and pairing', async () => {
	const ids = [900002, 900001, 900003];
	const { output } = await runNode(
		sim,
		ids.map((documentId) => ({
			resource: 'document',
			operation: 'download',
			documentId,
			binaryPropertyName: 'data',
		})),
	);
	expect(output.map((item) => item.json.documentId)).toEqual(ids);
	expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	for (const [index, id] of ids.entries()) {
		const served = await directPdf(sim, id);
		expect(sha256(Buffer.from(output[index].binary!.data.data, 'base64'))).toBe(sha256(served));
	}
});

test('a document that does not exist: 404 "No estimate document <id>"', async () => {
	const error = await runNodeError(sim, {
		resource: 'document',
		operation: 'download',
		documentId: 4242,
		binaryPropertyName: 'data',
	});
	expect(error.message).toBe('Item 1: No estimate document 4242 (404)');
	expect(error.httpCode).toBe('404');
	expect(error.context.itemIndex).toBe(0);
});

describe('the document is checked for completeness (%PDF- header, %%EOF in the last 1024 bytes)', () => {
	const notWhole = (id: number, problem: string) =>
		`Item 1: The estimate document ${id} did not arrive as a complete PDF (${problem})`;
	// n8n-core's real BinaryDataService in filesystem mode: the stream is written to disk, the item
	// holds an id, getBinaryStream(id) reads the file back
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const bench = require('../../support/n8n-context') as {
		initBinaryData(mode: 'filesystem' | 'memory'): Promise<string>;
		readStoredBinary(storagePath: string, binary: IDataObject): Buffer;
		removeBinaryData(storagePath: string): void;
		createBenchContext(options: {
			parameters: IDataObject;
			itemCount: number;
			credentials: IDataObject;
		}): IExecuteFunctions;
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { startDocumentServer } = require('./document-server') as {
		startDocumentServer(answer: { body: string; contentType: string }): Promise<{
			url: string;
			requests: string[];
			close(): Promise<void>;
		}>;
	};
	let storagePath: string;
	beforeAll(async () => {
		storagePath = await bench.initBinaryData('filesystem');
	});
	afterAll(() => {
		bench.removeBinaryData(storagePath);
	});

	/** The test context with n8n-core's prepareBinaryData and getBinaryStream (filesystem mode). */
	function filesystemMode() {
		const reads: string[] = [];
		const real = bench.createBenchContext({
			parameters: {},
			itemCount: 1,
			credentials: {},
		}).helpers;
		const prepare = (ctx: TestContext) => {
			const helpers = ctx.helpers as IExecuteFunctions['helpers'];
			helpers.prepareBinaryData = real.prepareBinaryData;
			helpers.getBinaryStream = async (id, chunkSize) => {
				reads.push(id);
				return await real.getBinaryStream(id, chunkSize);
			};
		};
		return { prepare, reads };
	}

	const documentsPath = () => `${sim.estimatePrefix}/EvEstimate/Documents/`;
	/** The simulator's truncate fault: no Content-Length, that share of the body, then the connection closes. */
	const truncate = async (fraction: number, extra: Partial<SimulatorFault> = {}) => {
		await addFault(sim, { truncate: fraction, match: { pathPrefix: documentsPath() }, ...extra });
	};
	const download = (documentId: number) => ({
		resource: 'document',
		operation: 'download',
		documentId,
		binaryPropertyName: 'data',
	});
	type NodeError = Awaited<ReturnType<typeof runNodeError>> & { failure?: unknown };

	test('a document cut in half without Content-Length: not complete, temporarily unavailable, no binary (memory mode)', async () => {
		const served = await directPdf(sim, 900002);
		await truncate(0.5);
		const error = (await runNodeError(sim, download(900002))) as NodeError;
		const received = Math.floor(served.length / 2);
		expect(error.message).toBe(
			notWhole(
				900002,
				`no %%EOF end-of-file marker in the last 1024 of the ${received} bytes received`,
			),
		);
		expect(error.description).toMatch(/connection.*closed.*Run the node again/i);
		expect(error.context.itemIndex).toBe(0);
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
		const log = await requestLog(sim, documentsPath());
		expect(log.map((r) => r.status)).toEqual([200, 200]);
	});

	test('a small stored document cut short: not complete too', async () => {
		const documentId = await storedDocumentId();
		await truncate(0.8);
		const error = (await runNodeError(sim, download(documentId))) as NodeError;
		expect(error.message).toMatch(
			new RegExp(
				`^Item 1: The estimate document ${documentId} did not arrive as a complete PDF \\(no %%EOF end-of-file marker in the \\d+ bytes received\\)$`,
			),
		);
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('an empty body: no bytes received', async () => {
		await truncate(0);
		const error = (await runNodeError(sim, download(900001))) as NodeError;
		expect(error.message).toBe(notWhole(900001, 'no bytes received'));
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('filesystem mode: the stored file is read back as a stream by its id and the cut is found', async () => {
		const store = filesystemMode();
		await truncate(0.5);
		const error = (await runNodeError(sim, download(900003), {
			prepare: store.prepare,
		})) as NodeError;
		expect(error.message).toMatch(
			/^Item 1: The estimate document 900003 did not arrive as a complete PDF \(no %%EOF/,
		);
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
		expect(store.reads).toHaveLength(1);
		expect(store.reads[0]).toMatch(/^filesystem(-v2)?:/);
	});

	test('filesystem mode: a complete document passes, keeps its id and is read back once', async () => {
		const store = filesystemMode();
		const { output } = await runNode(sim, download(900002), { prepare: store.prepare });
		const served = await directPdf(sim, 900002);
		const binary = output[0].binary!.data;
		expect(binary.id).toMatch(/^filesystem(-v2)?:/);
		expect(binary.data).not.toMatch(/^JVBER/); // no base64 PDF in the item
		expect(store.reads).toEqual([binary.id]);
		const stored = bench.readStoredBinary(storagePath, binary as unknown as IDataObject);
		expect(sha256(stored)).toBe(sha256(served));
		expect(output[0].json.fileSize).toBe(served.length);
	});

	test('a chunked answer broken off: the connection broke (the HTTP client notices)', async () => {
		await truncate(0.5, { chunked: true });
		const error = (await runNodeError(sim, download(900002))) as NodeError;
		expect(error.message).toBe(notWhole(900002, 'the connection broke while it was received'));
		expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
	});

	test('continue on fail: the cut item fails alone, without binary; the next one arrives whole', async () => {
		await truncate(0.5, { count: 1 });
		const { output } = await runNode(sim, [download(900001), download(900002)], {
			continueOnFail: true,
		});
		expect(output).toHaveLength(2);
		expect(output[0].binary).toBeUndefined();
		expect(String(output[0].json.error)).toMatch(
			/^Item 1: The estimate document 900001 did not arrive as a complete PDF \(no %%EOF/,
		);
		const served = await directPdf(sim, 900002);
		expect(sha256(Buffer.from(output[1].binary!.data.data, 'base64'))).toBe(sha256(served));
	});

	/** Runs fn against a server that answers every request with body as application/pdf (Content-Length set). */
	async function withDocumentServer(
		body: string,
		fn: (credentials: ReturnType<typeof estimateCredentials>, requests: string[]) => Promise<void>,
	): Promise<void> {
		const server = await startDocumentServer({ body, contentType: 'application/pdf' });
		try {
			await fn(
				estimateCredentials(sim, 'estimate', { apiBaseUrl: `${server.url}/estimate/v1` }),
				server.requests,
			);
		} finally {
			await server.close();
		}
	}

	test('all announced bytes but no %%EOF: not complete', async () => {
		const body = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n';
		await withDocumentServer(body, async (credentials) => {
			const error = (await runNodeError(sim, download(78), { credentials })) as NodeError;
			expect(error.message).toBe(
				notWhole(78, 'no %%EOF end-of-file marker in the 58 bytes received'),
			);
			expect(error.description).toContain('damaged at the service');
			expect(error.failure).toEqual({ cause: 'temporarily-unavailable' });
		});
	});

	test('a whole answer that is not a PDF (an HTML page sent as application/pdf) is refused, in both modes', async () => {
		const page = '<html><body>Service temporarily unavailable</body></html>\n';
		await withDocumentServer(page, async (credentials, requests) => {
			for (const prepare of [undefined, filesystemMode().prepare]) {
				const error = (await runNodeError(sim, download(77), {
					credentials,
					prepare,
				})) as NodeError;
				expect(error.message).toBe(
					notWhole(77, 'it starts with "<html><body>Service temporarily ", not %PDF-'),
				);
				expect(error.description).toContain('a proxy may have answered instead of the API');
				expect(error.context.itemIndex).toBe(0);
			}
			expect(requests).toEqual([
				'GET /estimate/v1/EvEstimate/Documents/77',
				'GET /estimate/v1/EvEstimate/Documents/77',
			]);
		});
	});
});

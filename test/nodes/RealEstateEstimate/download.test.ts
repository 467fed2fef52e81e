/**
 * document → download: the PDF arrives as n8n binary data, byte for byte what the service
 * serves (sha256 against a direct fetch), requested as a stream.
 */
import { createHash } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { useSimulator } from '../../support/simulator';
import { cadastre, directPdf, requestLog, runNode, runNodeError } from './helpers';

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

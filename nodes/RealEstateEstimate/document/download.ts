// Document → Download: the PDF streams into n8n's binary data store, then its two ends are checked.
import { NodeApiError } from 'n8n-workflow';
import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { Operation } from '../../shared/runner';
import { apiRequest } from '../../shared/transport';
import { releaseBody } from '../../shared/transport/retry';
import { checkPositiveInteger, fail, itemLabel, ok } from '../../shared/validation';
import { estimateWording, RESEND_ANY_FAILURE } from '../api';

const forDownload = { resource: ['document'], operation: ['download'] };

export const downloadFields: INodeProperties[] = [
	{
		displayName: 'Document ID',
		name: 'documentId',
		// text, so that n8n marks the required field while it is empty
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 5000001',
		description: 'The estimateDocumentId of a stored estimate (see Document → Get Many)',
		displayOptions: { show: forDownload },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the PDF in',
		displayOptions: { show: forDownload },
	},
];

const MIME_TYPE = 'application/pdf';

// A PDF starts with "%PDF-" and has "%%EOF" in its last 1024 bytes (ISO 32000-1 §7.5.2, §7.5.5; as
// readers check it): a body cut short by a connection closed without Content-Length has no marker there.
const PDF_HEADER = '%PDF-';
const PDF_EOF = Buffer.from('%%EOF', 'latin1');
const EOF_WINDOW = 1024;

// The stored file read back (tapping the response stream could lose data): by id as a stream where
// the file may be large (filesystem, database, object store); else from memory.
async function readBack(ctx: IExecuteFunctions, binary: IBinaryData) {
	const chunks = binary.id
		? ((await ctx.helpers.getBinaryStream(binary.id)) as AsyncIterable<Uint8Array>)
		: [Buffer.from(binary.data ?? '', 'base64')];
	let start = '';
	let tail = Buffer.alloc(0);
	let bytes = 0;
	for await (const chunk of chunks) {
		const buffer = Buffer.from(chunk);
		if (start.length < 32) start = (start + buffer.toString('latin1', 0, 32)).slice(0, 32);
		tail = Buffer.concat([tail, buffer.subarray(-EOF_WINDOW)]).subarray(-EOF_WINDOW);
		bytes += buffer.length;
	}
	const where = bytes > EOF_WINDOW ? `the last ${EOF_WINDOW} of the ${bytes}` : `the ${bytes}`;
	const problem = !bytes
		? 'no bytes received'
		: !start.startsWith(PDF_HEADER)
			? `it starts with "${start.replace(/[^\x20-\x7e]/g, '.')}", not ${PDF_HEADER}`
			: !tail.includes(PDF_EOF)
				? `no %%EOF end-of-file marker in ${where} bytes received`
				: undefined;
	return { bytes, problem };
}

export const download: Operation<{ documentId: number; binaryPropertyName: string }> = {
	prepare(ctx, { fields }, itemIndex) {
		const name = ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data');
		return {
			documentId: fields.take(
				itemIndex,
				'documentId',
				checkPositiveInteger(ctx.getNodeParameter('documentId', itemIndex, '')),
			),
			binaryPropertyName: fields.take(
				itemIndex,
				'binaryPropertyName',
				typeof name === 'string' && name.trim()
					? ok(name.trim())
					: fail('must be a name such as data'),
			),
		};
	},

	async run(ctx, { connection }, itemIndex, { documentId, binaryPropertyName }) {
		const path = `/EvEstimate/Documents/${documentId}`;
		const fileName = `estimate-${documentId}.pdf`;
		const fault = (problem: string, detail: string) =>
			new NodeApiError(
				ctx.getNode(),
				{ request: `GET ${path}`, problem, detail },
				{
					itemIndex,
					message: `${itemLabel(itemIndex)}: The estimate document ${documentId} did not arrive as a complete PDF (${problem})`,
					description:
						'A complete PDF starts with %PDF- and ends with %%EOF. The connection may have closed before the end, a proxy may have answered instead of the API (check API Base URL in the credential), or the document is damaged at the service. Run the node again.',
					failure: { cause: 'temporarily-unavailable' },
				},
			);
		const response = (await apiRequest(
			ctx,
			connection,
			{ method: 'GET', path, stream: true, accept: MIME_TYPE },
			{
				itemIndex,
				policy: RESEND_ANY_FAILURE,
				wording: estimateWording({
					action: 'download the estimate document',
					target: `document ${documentId}`,
					notFound: `No estimate document ${documentId}`,
				}),
			},
		)) as { body?: Buffer } | undefined;
		let binary: IBinaryData;
		try {
			binary = await ctx.helpers.prepareBinaryData(response?.body as Buffer, fileName, MIME_TYPE);
		} catch (error) {
			releaseBody(response?.body);
			throw fault('the connection broke while it was received', String((error as Error)?.message));
		}
		const { bytes, problem } = await readBack(ctx, binary);
		if (problem) throw fault(problem, `${bytes} bytes received`);
		return [
			{
				json: { documentId, fileName, mimeType: MIME_TYPE, fileSize: bytes },
				binary: { [binaryPropertyName]: binary },
			},
		];
	},
};

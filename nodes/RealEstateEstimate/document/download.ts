// Document → Download: the PDF streams into n8n's binary data store, then its two ends are checked.
import { NodeApiError } from 'n8n-workflow';
import type { IBinaryData, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
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
const HEAD_WINDOW = 32;

// The stored file read back (tapping the response stream could lose data): by id as a stream where
// the file may be large (filesystem, database, object store); else from memory.
async function readEnds(ctx: IExecuteFunctions, binary: IBinaryData) {
	if (!binary.id) {
		const buffer = Buffer.from(binary.data ?? '', 'base64');
		return {
			head: buffer.subarray(0, HEAD_WINDOW),
			tail: buffer.subarray(-EOF_WINDOW),
			bytes: buffer.length,
		};
	}
	let head = Buffer.alloc(0);
	let tail = Buffer.alloc(0);
	let bytes = 0;
	const stream = await ctx.helpers.getBinaryStream(binary.id);
	for await (const chunk of stream as AsyncIterable<Buffer | Uint8Array | string>) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : Buffer.from(chunk);
		bytes += buffer.length;
		if (head.length < HEAD_WINDOW) head = Buffer.concat([head, buffer]).subarray(0, HEAD_WINDOW);
		tail = Buffer.concat([tail, buffer.subarray(-EOF_WINDOW)]).subarray(-EOF_WINDOW);
	}
	return { head, tail, bytes };
}

type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

interface Problem {
	context: JsonObject;
	message: string;
	description: string;
	/** Cut short (temporarily unavailable: run again), not something else. */
	cut: boolean;
}

function pdfProblem(ends: Awaited<ReturnType<typeof readEnds>>, id: number): Problem | undefined {
	const { head, tail, bytes } = ends;
	const start = head.toString('latin1');
	// a body shorter than the header that is its beginning was cut, not something else
	const short = bytes < PDF_HEADER.length && PDF_HEADER.startsWith(start);
	if (!short && !start.startsWith(PDF_HEADER)) {
		return {
			context: { receivedBytes: bytes },
			message: `The estimate API did not send a PDF for document ${id}`,
			description: `The answer does not start with ${PDF_HEADER} (it starts with "${start.replace(/[^\x20-\x7e]/g, '.')}"). A proxy or gateway may have answered instead: check the credential's API Base URL.`,
			cut: false,
		};
	}
	if (!short && tail.includes(PDF_EOF)) return undefined;
	const where =
		bytes > EOF_WINDOW ? `in the last ${EOF_WINDOW} of the ${bytes}` : `in the ${bytes}`;
	const reason =
		bytes === 0
			? 'no bytes received'
			: short
				? `only ${bytes} bytes received`
				: `no %%EOF end-of-file marker ${where} bytes received`;
	return {
		context: { receivedBytes: bytes, reason },
		message: `The estimate document ${id} is incomplete (${reason})`,
		description:
			'A complete PDF ends with %%EOF: the connection may have closed before the end, or the document is damaged at the service. Run the node again.',
		cut: true,
	};
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
		const wording = estimateWording({
			action: 'download the estimate document',
			target: `document ${documentId}`,
			notFound: `No estimate document ${documentId}`,
		});
		const fault = ({ context, message, description, cut }: Problem) =>
			new NodeApiError(
				ctx.getNode(),
				{ request: `GET ${path}`, ...context },
				{
					itemIndex,
					message: `${itemLabel(itemIndex)}: ${message}`,
					description,
					...(cut ? { failure: { cause: 'temporarily-unavailable' as const } } : {}),
				},
			);
		const response = (await apiRequest(
			ctx,
			connection,
			{ method: 'GET', path, stream: true, accept: MIME_TYPE },
			{ itemIndex, policy: RESEND_ANY_FAILURE, wording },
		)) as { body?: unknown } | undefined;
		let binary: IBinaryData;
		try {
			binary = await ctx.helpers.prepareBinaryData(
				response?.body as BinaryInput,
				fileName,
				MIME_TYPE,
			);
		} catch (error) {
			releaseBody(response?.body);
			throw fault({
				context: { reason: (error as Error)?.message ?? String(error) },
				message: `The download of estimate document ${documentId} was interrupted`,
				description: 'The connection broke while the PDF was being received. Run the node again.',
				cut: true,
			});
		}
		const ends = await readEnds(ctx, binary);
		const problem = pdfProblem(ends, documentId);
		if (problem) throw fault(problem);
		binary.fileName = fileName;
		binary.mimeType = MIME_TYPE;
		return [
			{
				json: { documentId, fileName, mimeType: MIME_TYPE, fileSize: ends.bytes },
				binary: { [binaryPropertyName]: binary },
			},
		];
	},
};

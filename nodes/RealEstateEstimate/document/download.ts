import { NodeApiError } from 'n8n-workflow';
import type { IBinaryData, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { apiRequest } from '../../shared/transport';
import type { Connection } from '../../shared/transport';
import { lowerCaseHeaders } from '../../shared/transport/failure';
import { releaseBody } from '../../shared/transport/retry';
import { checkPositiveInteger, fail, itemLabel, ok } from '../../shared/validation';
import type { Check } from '../../shared/validation';
import { RESEND_ANY_FAILURE } from '../api';
import type { EstimateOperation } from '../api';
import { estimateWording } from '../wording';
import type { Subject } from '../wording';

const showOnlyForDownload = { resource: ['document'], operation: ['download'] };

export const downloadDescription: INodeProperties[] = [
	{
		displayName: 'Document ID',
		name: 'documentId',
		// text, so that n8n marks the required field while it is empty (see the object identification)
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 5000001',
		description:
			'The estimateDocumentId of a stored estimate (see Document → Get Many), a positive whole number',
		displayOptions: { show: showOnlyForDownload },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the output binary field to put the PDF in',
		displayOptions: { show: showOnlyForDownload },
	},
];

function checkBinaryPropertyName(value: unknown): Check<string> {
	if (typeof value !== 'string' || value.trim() === '')
		return fail('must be a non-empty name such as data');
	return ok(value.trim());
}

interface DownloadPrepared {
	documentId: number;
	binaryPropertyName: string;
}

type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

const MIME_TYPE = 'application/pdf';

function documentFileName(documentId: number): string {
	return `estimate-${documentId}.pdf`;
}

// A PDF starts with "%PDF-" and has "%%EOF" in its last 1024 bytes (ISO 32000-1 §7.5.2, §7.5.5; as
// readers check it): a body cut short by a closed connection has no marker there.
const PDF_HEADER = '%PDF-';
const PDF_EOF = Buffer.from('%%EOF', 'latin1');
const EOF_WINDOW = 1024;
const HEAD_WINDOW = 32;

interface DocumentEnds {
	head: Buffer;
	tail: Buffer;
	bytes: number;
}

// By id as a stream where the file may be large (filesystem, database, object store); else in memory.
async function readDocumentEnds(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
): Promise<DocumentEnds> {
	if (!binary.id) {
		const buffer = Buffer.from(binary.data ?? '', 'base64');
		return {
			head: buffer.subarray(0, HEAD_WINDOW),
			tail: buffer.subarray(-EOF_WINDOW),
			bytes: buffer.length,
		};
	}
	const stream = await ctx.helpers.getBinaryStream(binary.id);
	let head = Buffer.alloc(0);
	let tail = Buffer.alloc(0);
	let bytes = 0;
	for await (const chunk of stream as AsyncIterable<Buffer | Uint8Array | string>) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : Buffer.from(chunk);
		bytes += buffer.length;
		if (head.length < HEAD_WINDOW) {
			head = Buffer.concat([head, buffer.subarray(0, HEAD_WINDOW - head.length)]);
		}
		tail = Buffer.concat([tail, buffer.subarray(-EOF_WINDOW)]).subarray(-EOF_WINDOW);
	}
	return { head, tail, bytes };
}

/** One download: what every error of it names. */
interface Download {
	ctx: IExecuteFunctions;
	itemIndex: number;
	documentId: number;
	path: string;
	label: string;
}

type ApiErrorOptions = NonNullable<ConstructorParameters<typeof NodeApiError>[2]>;

const BROKE = 'The connection broke while the PDF was being received. Run the node again.';

function downloadError(
	d: Download,
	context: JsonObject,
	{ message, ...rest }: ApiErrorOptions & { message: string },
): NodeApiError {
	return new NodeApiError(
		d.ctx.getNode(),
		{ request: `GET ${d.path}`, ...context },
		{ itemIndex: d.itemIndex, message: `${d.label}: ${message}`, ...rest },
	);
}

async function receive(d: Download, connection: Connection) {
	const { ctx, documentId, path } = d;
	const subject: Subject = {
		action: 'download the estimate document',
		target: `document ${documentId}`,
		notFound: `No estimate document ${documentId}`,
		badRequestHint: `document ID ${documentId} is missing or out of range`,
	};
	const response = (await apiRequest(
		ctx,
		connection,
		{ method: 'GET', path, stream: true, accept: MIME_TYPE },
		{ itemIndex: d.itemIndex, policy: RESEND_ANY_FAILURE, wording: estimateWording(subject) },
	)) as { body?: unknown; headers?: unknown } | undefined;
	const body = response?.body;
	const headers = lowerCaseHeaders(response?.headers);
	const contentType = (headers['content-type'] ?? '').toLowerCase();
	if (!body || /json|^text\//.test(contentType)) {
		releaseBody(body);
		throw downloadError(
			d,
			{ contentType },
			{
				message: `The estimate API did not send a PDF for document ${documentId}`,
				description: `Expected application/pdf, got ${contentType || 'no content type'}.`,
			},
		);
	}
	try {
		// the stream goes straight to n8n's binary data store (to disk in filesystem mode)
		const fileName = documentFileName(documentId);
		const binary = await ctx.helpers.prepareBinaryData(body as BinaryInput, fileName, MIME_TYPE);
		return { binary, headers, contentType };
	} catch (error) {
		releaseBody(body);
		throw downloadError(
			d,
			{ reason: (error as Error)?.message ?? String(error) },
			{
				message: `The download of estimate document ${d.documentId} was interrupted`,
				description: BROKE,
				failure: { cause: 'temporarily-unavailable' },
			},
		);
	}
}

function checkLength(d: Download, received: number | undefined, expected: number): void {
	if (typeof received !== 'number' || !Number.isFinite(expected) || received === expected) return;
	throw downloadError(
		d,
		{ expectedBytes: expected, receivedBytes: received },
		{
			message: `The download of estimate document ${d.documentId} is incomplete (${received} of ${expected} bytes)`,
			description: BROKE,
			failure: { cause: 'temporarily-unavailable' },
		},
	);
}

function checkPdf(d: Download, ends: DocumentEnds, contentType: string, expected: number): void {
	const { head, tail, bytes } = ends;
	const start = head.toString('latin1');
	let reason: string | undefined;
	if (bytes === 0) reason = 'no bytes received';
	// a body shorter than the header that is its beginning was cut, not something else
	else if (bytes < PDF_HEADER.length && PDF_HEADER.startsWith(start))
		reason = `only ${bytes} bytes received`;
	else if (!start.startsWith(PDF_HEADER)) {
		throw downloadError(
			d,
			{ contentType, receivedBytes: bytes },
			{
				message: `The estimate API did not send a PDF for document ${d.documentId}`,
				description: `The answer is declared as ${contentType || 'no content type'} but does not start with ${PDF_HEADER} (it starts with "${start.replace(/[^\x20-\x7e]/g, '.')}"). A proxy or gateway may have answered instead of the estimate API; check the credential's API Base URL, or run the node again later.`,
			},
		);
	} else if (!tail.includes(PDF_EOF)) {
		const where =
			bytes > EOF_WINDOW ? `in the last ${EOF_WINDOW} of the ${bytes}` : `in the ${bytes}`;
		reason = `no %%EOF end-of-file marker ${where} bytes received`;
	}
	if (reason === undefined) return;
	throw downloadError(
		d,
		{ receivedBytes: bytes, reason },
		{
			message: `The estimate document ${d.documentId} is incomplete (${reason})`,
			description: Number.isFinite(expected)
				? 'The estimate API sent a PDF without its end (a complete PDF ends with %%EOF), although all announced bytes arrived. Run the node again; if it happens again, the document is damaged at the service.'
				: 'The connection was closed before the whole PDF had arrived (a complete PDF ends with %%EOF; the service sent no Content-Length to check against). Run the node again.',
			failure: { cause: 'temporarily-unavailable' },
		},
	);
}

export const download: EstimateOperation<DownloadPrepared> = {
	identifiesObject: false,
	prepare(ctx, { fields }, itemIndex) {
		return {
			documentId: fields.take(
				itemIndex,
				'documentId',
				checkPositiveInteger(ctx.getNodeParameter('documentId', itemIndex, '')),
			),
			binaryPropertyName: fields.take(
				itemIndex,
				'binaryPropertyName',
				checkBinaryPropertyName(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data')),
			),
		};
	},

	async run(ctx, { connection }, itemIndex, { documentId, binaryPropertyName }) {
		const path = `/EvEstimate/Documents/${documentId}`;
		const d: Download = { ctx, itemIndex, documentId, path, label: itemLabel(itemIndex) };
		const { binary, headers, contentType } = await receive(d, connection);
		const expected = Number(headers['content-length']);
		checkLength(d, binary.bytes, expected);
		// the stored file is read back (the response stream is not tapped: that could lose data)
		checkPdf(d, await readDocumentEnds(ctx, binary), contentType, expected);
		const size =
			typeof binary.bytes === 'number'
				? binary.bytes
				: Number.isFinite(expected)
					? expected
					: undefined;
		const fileName = documentFileName(documentId);
		binary.fileName = fileName;
		binary.mimeType = MIME_TYPE;
		const json: Record<string, string | number> = { documentId, fileName, mimeType: MIME_TYPE };
		if (size !== undefined) json.fileSize = size;
		return [{ json, binary: { [binaryPropertyName]: binary } }];
	},
};

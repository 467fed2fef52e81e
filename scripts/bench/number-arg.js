'use strict';
// The small benches' one kind of option, `--name N` (a number of at least 1), shared so each reads it alike.

/** The number after `name` on the command line, or `dflt`; throws unless it is at least 1. */
function numberArg(name, dflt, argv = process.argv) {
	const i = argv.indexOf(name);
	const n = i === -1 ? dflt : Number(argv[i + 1]);
	if (!(n >= 1)) throw new Error(`${name} needs a number of at least 1`);
	return n;
}

module.exports = { numberArg };

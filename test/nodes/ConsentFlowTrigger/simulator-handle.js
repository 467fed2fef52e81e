'use strict';
// Typed entry to the package simulator (test/simulator) for this folder's TypeScript tests.
module.exports = require('../../simulator');

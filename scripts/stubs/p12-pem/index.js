'use strict';
// @tak-ps/node-tak's CLI reads .p12 files with p12-pem; the tests use only its library.
module.exports = {
  getPemFromP12() {
    throw new Error('p12-pem is not installed here (a stub stands in for it)');
  },
};

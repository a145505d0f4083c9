package cli

// TestIO is testIO for the tests of package cli_test.
var TestIO = testIO

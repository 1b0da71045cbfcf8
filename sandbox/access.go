package sandbox

import "pathgrant/sandbox/rules"

// Access is a set of Landlock file-system access rights (rules.Access).
type Access = rules.Access

// Rule lets a file hierarchy (or one file) be reached with Access
// (rules.Rule).
type Rule = rules.Rule

// The file-system rights, and the sets the rules grant (see package rules).
const (
	Execute    = rules.Execute
	WriteFile  = rules.WriteFile
	ReadFile   = rules.ReadFile
	ReadDir    = rules.ReadDir
	RemoveDir  = rules.RemoveDir
	RemoveFile = rules.RemoveFile
	MakeChar   = rules.MakeChar
	MakeDir    = rules.MakeDir
	MakeReg    = rules.MakeReg
	MakeSock   = rules.MakeSock
	MakeFifo   = rules.MakeFifo
	MakeBlock  = rules.MakeBlock
	MakeSym    = rules.MakeSym
	Refer      = rules.Refer
	Truncate   = rules.Truncate
	IoctlDev   = rules.IoctlDev

	Handled    = rules.Handled
	ReadOnly   = rules.ReadOnly
	ReadExec   = rules.ReadExec
	Write      = rules.Write
	ReadWrite  = rules.ReadWrite
	DeviceRW   = rules.DeviceRW
	FileRights = rules.FileRights
)

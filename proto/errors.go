package proto

import (
	"errors"
	"strconv"
)

// ErrCode is a ZooKeeper error code (ReplyHeader.err, ErrorTxn.err).
type ErrCode int32

// The codes of KeeperException.Code in ZooKeeper 3.8. There is no -126.
const (
	ErrOK                           ErrCode = 0
	ErrSystemError                  ErrCode = -1
	ErrRuntimeInconsistency         ErrCode = -2
	ErrDataInconsistency            ErrCode = -3
	ErrConnectionLoss               ErrCode = -4
	ErrMarshallingError             ErrCode = -5
	ErrUnimplemented                ErrCode = -6
	ErrOperationTimeout             ErrCode = -7
	ErrBadArguments                 ErrCode = -8
	ErrUnknownSession               ErrCode = -12
	ErrNewConfigNoQuorum            ErrCode = -13
	ErrReconfigInProgress           ErrCode = -14
	ErrAPIError                     ErrCode = -100
	ErrNoNode                       ErrCode = -101
	ErrNoAuth                       ErrCode = -102
	ErrBadVersion                   ErrCode = -103
	ErrNoChildrenForEphemerals      ErrCode = -108
	ErrNodeExists                   ErrCode = -110
	ErrNotEmpty                     ErrCode = -111
	ErrSessionExpired               ErrCode = -112
	ErrInvalidCallback              ErrCode = -113
	ErrInvalidACL                   ErrCode = -114
	ErrAuthFailed                   ErrCode = -115
	ErrSessionMoved                 ErrCode = -118
	ErrNotReadOnly                  ErrCode = -119
	ErrEphemeralOnLocalSession      ErrCode = -120
	ErrNoWatcher                    ErrCode = -121
	ErrRequestTimeout               ErrCode = -122
	ErrReconfigDisabled             ErrCode = -123
	ErrSessionClosedRequireSaslAuth ErrCode = -124
	ErrQuotaExceeded                ErrCode = -125
	ErrThrottledOp                  ErrCode = -127
)

// errNames holds Java's KeeperException.Code names.
var errNames = map[ErrCode]string{
	ErrOK: "OK", ErrSystemError: "SYSTEMERROR",
	ErrRuntimeInconsistency: "RUNTIMEINCONSISTENCY", ErrDataInconsistency: "DATAINCONSISTENCY",
	ErrConnectionLoss: "CONNECTIONLOSS", ErrMarshallingError: "MARSHALLINGERROR",
	ErrUnimplemented: "UNIMPLEMENTED", ErrOperationTimeout: "OPERATIONTIMEOUT",
	ErrBadArguments: "BADARGUMENTS", ErrUnknownSession: "UNKNOWNSESSION",
	ErrNewConfigNoQuorum: "NEWCONFIGNOQUORUM", ErrReconfigInProgress: "RECONFIGINPROGRESS",
	ErrAPIError: "APIERROR", ErrNoNode: "NONODE", ErrNoAuth: "NOAUTH",
	ErrBadVersion: "BADVERSION", ErrNoChildrenForEphemerals: "NOCHILDRENFOREPHEMERALS",
	ErrNodeExists: "NODEEXISTS", ErrNotEmpty: "NOTEMPTY", ErrSessionExpired: "SESSIONEXPIRED",
	ErrInvalidCallback: "INVALIDCALLBACK", ErrInvalidACL: "INVALIDACL",
	ErrAuthFailed: "AUTHFAILED", ErrSessionMoved: "SESSIONMOVED",
	ErrNotReadOnly: "NOTREADONLY", ErrEphemeralOnLocalSession: "EPHEMERALONLOCALSESSION",
	ErrNoWatcher: "NOWATCHER", ErrRequestTimeout: "REQUESTTIMEOUT",
	ErrReconfigDisabled:             "RECONFIGDISABLED",
	ErrSessionClosedRequireSaslAuth: "SESSIONCLOSEDREQUIRESASLAUTH",
	ErrQuotaExceeded:                "QUOTAEXCEEDED", ErrThrottledOp: "THROTTLEDOP",
}

// errMessages holds the text Java's KeeperException uses for each code.
var errMessages = map[ErrCode]string{
	ErrOK: "ok", ErrSystemError: "SystemError",
	ErrRuntimeInconsistency: "RuntimeInconsistency", ErrDataInconsistency: "DataInconsistency",
	ErrConnectionLoss: "ConnectionLoss", ErrMarshallingError: "MarshallingError",
	ErrUnimplemented: "Unimplemented", ErrOperationTimeout: "OperationTimeout",
	ErrBadArguments: "BadArguments", ErrUnknownSession: "Unknown session",
	ErrNewConfigNoQuorum:  "NewConfigNoQuorum",
	ErrReconfigInProgress: "ReconfigInProgress",
	ErrAPIError:           "APIError", ErrNoNode: "NoNode", ErrNoAuth: "NoAuth",
	ErrBadVersion: "BadVersion", ErrNoChildrenForEphemerals: "NoChildrenForEphemerals",
	ErrNodeExists: "NodeExists", ErrNotEmpty: "Directory not empty",
	ErrSessionExpired: "Session expired", ErrInvalidCallback: "Invalid callback",
	ErrInvalidACL: "InvalidACL", ErrAuthFailed: "AuthFailed",
	ErrSessionMoved: "Session moved", ErrNotReadOnly: "Not a read-only call",
	ErrEphemeralOnLocalSession: "Ephemeral node on local session",
	ErrNoWatcher:               "No such watcher", ErrRequestTimeout: "Request timeout",
	ErrReconfigDisabled:             "Reconfig is disabled",
	ErrSessionClosedRequireSaslAuth: "Session closed because client failed to authenticate",
	ErrQuotaExceeded:                "Quota has exceeded", ErrThrottledOp: "Op throttled due to high load",
}

// Name returns Java's enum name for the code, e.g. NONODE.
func (c ErrCode) Name() string {
	if n, ok := errNames[c]; ok {
		return n
	}
	return "UNKNOWN" + strconv.Itoa(int(c))
}

// Known reports whether c is a code Java clients understand.
func (c ErrCode) Known() bool {
	_, ok := errNames[c]
	return ok
}

// Error returns the message Java's KeeperException prints for the code,
// e.g. "KeeperErrorCode = NoNode".
func (c ErrCode) Error() string {
	if m, ok := errMessages[c]; ok {
		return "KeeperErrorCode = " + m
	}
	return "KeeperErrorCode = Unknown error " + strconv.Itoa(int(c))
}

// Err returns nil for ErrOK and an *Error otherwise.
func (c ErrCode) Err() error {
	if c == ErrOK {
		return nil
	}
	return &Error{Code: c}
}

// Error is a failed ZooKeeper operation: the code and, when known, the
// path, formatted the way Java's KeeperException does.
type Error struct {
	Code ErrCode
	Path string
}

// NewError returns an *Error for code at path.
func NewError(code ErrCode, path string) *Error { return &Error{Code: code, Path: path} }

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Code.Error()
	}
	return e.Code.Error() + " for " + e.Path
}

// Is makes errors.Is(err, proto.ErrNoNode) work for *Error values.
func (e *Error) Is(target error) bool {
	if c, ok := target.(ErrCode); ok {
		return c == e.Code
	}
	return false
}

// CodeOf returns the ZooKeeper code carried by err: the code of an *Error
// or ErrCode, ErrOK for nil, and ErrSystemError for anything else.
func CodeOf(err error) ErrCode {
	if err == nil {
		return ErrOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c ErrCode
	if errors.As(err, &c) {
		return c
	}
	return ErrSystemError
}

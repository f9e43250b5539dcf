// Package media carries binary tool results (image, audio, video, document)
// with their trust tier and modality hazard.
package media

// New board: show which photo was chosen, and upload it with a progress bar.
// Without JavaScript the form still works as a plain multipart POST.
(function () {
  "use strict";
  const form = document.getElementById("upload-form");
  if (!form) return;
  const chosen = document.getElementById("chosen");
  const inputs = form.querySelectorAll('input[type="file"]');
  inputs.forEach(function (input) {
    input.addEventListener("change", function () {
      // Only one photo is sent: clear the other input.
      inputs.forEach(function (other) { if (other !== input) other.value = ""; });
      const file = input.files[0];
      chosen.textContent = file ? "Photo: " + file.name + " (" + (file.size / 1048576).toFixed(1) + " MB)" : "";
    });
  });

  form.addEventListener("submit", function (event) {
    const hasFile = Array.prototype.some.call(inputs, function (i) { return i.files.length > 0; });
    if (!hasFile || !window.XMLHttpRequest) return;  // the server explains what is missing
    event.preventDefault();
    const progress = document.getElementById("progress");
    const bar = document.getElementById("progress-bar");
    const text = document.getElementById("progress-text");
    const button = form.querySelector('button[type="submit"]');
    progress.hidden = false;
    button.disabled = true;
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action || window.location.href);
    xhr.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      const percent = Math.round(100 * e.loaded / e.total);
      bar.value = percent;
      text.textContent = "Uploading… " + percent + " %";
    });
    xhr.upload.addEventListener("load", function () {
      bar.removeAttribute("value");  // indeterminate while the board is read
      text.textContent = "Reading the board… this takes a few seconds.";
    });
    xhr.addEventListener("load", function () {
      if (xhr.status < 400 && xhr.responseURL && xhr.responseURL !== window.location.href) {
        window.location.assign(xhr.responseURL);
        return;
      }
      // The form came back with errors (or an error page): show it as it is.
      document.open();
      document.write(xhr.responseText);
      document.close();
    });
    xhr.addEventListener("error", function () {
      progress.hidden = true;
      button.disabled = false;
      chosen.textContent = "The upload failed (network error). Try again.";
    });
    xhr.send(new FormData(form));
  });
})();
